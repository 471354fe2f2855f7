import { useState } from "react";
import { Button, Group, Stack, Text, TextInput } from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import { policies, type PolicyDetail, policyKeys } from "../../api/policies.js";
import { Dialog } from "../../components/Dialog.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";

/** The emergency stop (SPEC 3.6): every call of the policy denied, open actions closed, until a rollback. */
export function EmergencyStopDialog({
  orgId,
  detail,
  onClose,
  onDone,
}: {
  orgId: string;
  detail: PolicyDetail;
  onClose: () => void;
  onDone: (closed: number) => void;
}) {
  const queryClient = useQueryClient();
  const [typed, setTyped] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const name = detail.policy.name;
  async function stop() {
    setError(null);
    setBusy(true);
    try {
      const s = await policies.emergencyStop(orgId, detail.policy.id);
      await queryClient.invalidateQueries({ queryKey: policyKeys.one(detail.policy.id) });
      await queryClient.invalidateQueries({ queryKey: policyKeys.status(orgId) });
      onDone(s.closed_actions);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  return (
    <Dialog title={`Emergency stop of ${name}`} onClose={onClose}>
      <Stack gap="md">
        <Text fw={500}>
          Every call of every agent under this policy is denied at once, pending approvals and approved calls
          not yet run are closed, and observe windows end. Only a rollback lifts the stop.
        </Text>
        <TextInput
          label={`Type the policy's name, ${name}, to confirm`}
          value={typed}
          onChange={(e) => setTyped(e.currentTarget.value)}
          autoComplete="off"
          error={
            typed && !name.startsWith(typed) ? `That is not the policy's name; type ${name}.` : undefined
          }
        />
        <ErrorNotice error={error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color="red" onClick={stop} loading={busy} disabled={typed !== name}>
            Stop every call
          </Button>
        </Group>
      </Stack>
    </Dialog>
  );
}
