import { useEffect, useState, type FormEvent } from "react";
import { Alert, Button, Code, Group, Paper, Stack, Text, TextInput, Title } from "@mantine/core";
import { policyEvidenceSchema } from "@countersign/protocol/wire";
import { DashboardError } from "../../api/errors.js";
import { policies, type Policy } from "../../api/policies.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";

const day = 86_400_000;
const dateOnly = (t: number) => new Date(t).toISOString().slice(0, 10);

/** The evidence export (Admins): how the policy changed over a period of at most 400 days, as one signed-off JSON file. */
export function EvidenceExport({ orgId, policy }: { orgId: string; policy: Policy }) {
  const [file, setFile] = useState<{ url: string; digest: string; name: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [from, setFrom] = useState(dateOnly(Date.now() - 30 * day));
  const [to, setTo] = useState(dateOnly(Date.now()));
  const [busy, setBusy] = useState(false);
  const days = (Date.parse(to) - Date.parse(from)) / day;
  const rangeError =
    !from || !to
      ? "Choose both days."
      : days < 0
        ? "The period ends before it starts: choose a “To” day on or after the “From” day."
        : days > 399
          ? "The period is at most 400 days: choose a later “From” day."
          : null;
  useEffect(
    () => () => {
      if (file) URL.revokeObjectURL(file.url);
    },
    [file],
  );

  async function fetchIt(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (rangeError) return;
    setError(null);
    setBusy(true);
    try {
      const start = new Date(`${from}T00:00:00Z`).toISOString();
      // The end of the chosen day, but never after now.
      const end = new Date(
        Math.min(Date.now(), new Date(`${to}T00:00:00Z`).getTime() + day - 1),
      ).toISOString();
      const { bytes } = await policies.evidence(orgId, policy.id, start, end);
      // The export as the wire describes it (docs/policy-rollout.md); its digest is shown to compare.
      const parsed = policyEvidenceSchema.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
      if (!parsed.success)
        throw new DashboardError("INVALID_RESPONSE", "the evidence export is not the expected document");
      setFile({
        url: URL.createObjectURL(
          new Blob([bytes.slice().buffer as ArrayBuffer], { type: "application/json" }),
        ),
        digest: parsed.data.digest,
        name: `policy-${policy.id}-evidence.json`,
      });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Stack gap="sm" component="section" aria-labelledby="evidence-heading">
      <Title order={2} size="h3" id="evidence-heading">
        Evidence export
      </Title>
      <Text size="sm" c="dimmed" maw={720}>
        Every version with its document, the activations and rollbacks with what their gates found, the saved
        simulations and the audit entries of a period, with the digest of it all.
      </Text>
      <Paper withBorder p="md" maw={560}>
        <form onSubmit={fetchIt} noValidate>
          <Stack gap="sm">
            <Group gap="sm" align="flex-start">
              <TextInput
                label="From"
                type="date"
                required
                value={from}
                onChange={(e) => setFrom(e.currentTarget.value)}
                error={days > 399 ? rangeError : undefined}
              />
              <TextInput
                label="To"
                type="date"
                required
                value={to}
                onChange={(e) => setTo(e.currentTarget.value)}
                error={days > 399 ? undefined : rangeError}
              />
            </Group>
            <Group>
              <Button type="submit" loading={busy} disabled={!!rangeError}>
                Prepare the export
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
      <ErrorNotice error={error} />
      {file && (
        <Alert color="green" variant="light" role="status" data-testid="evidence-ready">
          <Group gap="sm">
            <Button component="a" href={file.url} download={file.name} size="xs">
              Download the evidence
            </Button>
            <Text size="sm">
              digest <Code>{file.digest}</Code>
            </Text>
          </Group>
        </Alert>
      )}
    </Stack>
  );
}
