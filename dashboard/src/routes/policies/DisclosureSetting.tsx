import { useState, type FormEvent } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { Alert, Button, Group, NativeSelect, Paper, Stack, Text, Title } from "@mantine/core";
import { policyDisclosures } from "@countersign/protocol/wire";
import { policies, type PolicyDisclosure, type Policy, policyKeys } from "../../api/policies.js";
import { RefusalNotice } from "../../components/RefusalNotice.js";

const meaning: Record<PolicyDisclosure, string> = {
  inherit: "the organization's setting",
  none: "nothing about the policy",
  rule: "the deciding rule",
  conditions: "the deciding rule and its conditions",
};

/** What agents are told about why a call was decided; not part of any document, so it makes no version. */
export function DisclosureSetting({
  orgId,
  policy,
  mayChange,
}: {
  orgId: string;
  policy: Policy;
  mayChange: boolean;
}) {
  const queryClient = useQueryClient();
  const [value, setValue] = useState<PolicyDisclosure>(policy.agent_disclosure);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);

  async function save(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setError(null);
    setSaved(false);
    setBusy(true);
    try {
      await policies.setDisclosure(orgId, policy.id, value);
      await queryClient.invalidateQueries({ queryKey: policyKeys.one(policy.id) });
      setSaved(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Stack gap="sm" component="section" aria-labelledby="disclosure-heading">
      <Title order={2} size="h3" id="disclosure-heading">
        Agent disclosure
      </Title>
      <Text size="sm" c="dimmed" maw={720}>
        What an agent is told about why its call was decided. It is not part of any document, so changing it
        makes no version.
      </Text>
      {!mayChange ? (
        <Text>Agents are told {meaning[policy.agent_disclosure]}.</Text>
      ) : (
        <Paper withBorder p="md" maw={560}>
          <form onSubmit={save}>
            <Stack gap="sm">
              <NativeSelect
                label="Agents are told"
                name="agent_disclosure"
                value={value}
                onChange={(e) => {
                  const v = policyDisclosures.find((x) => x === e.currentTarget.value);
                  if (v) setValue(v);
                  setSaved(false);
                }}
                data={policyDisclosures.map((s) => ({ value: s, label: `${meaning[s]} (${s})` }))}
              />
              <Group>
                <Button type="submit" loading={busy}>
                  Save the disclosure
                </Button>
              </Group>
              {saved && (
                <Alert color="green" variant="light" role="status">
                  Saved. It applies to the next decisions; no version was made.
                </Alert>
              )}
              <RefusalNotice error={error} />
            </Stack>
          </form>
        </Paper>
      )}
    </Stack>
  );
}
