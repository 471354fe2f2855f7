import { useState } from "react";
import { Button, Group, NativeSelect, Radio, Stack, Text, Textarea } from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import {
  policies,
  type OpenActionsChoice,
  type PolicyDetail,
  type Rollback,
  policyKeys,
} from "../../api/policies.js";
import { Dialog } from "../../components/Dialog.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";

/**
 * The open-action choices the dashboard offers. SPEC 3.6 keeps `supersede_all`
 * (closing approved and allowed calls not yet run) to the API, so it is not here.
 */
type DashboardChoice = Exclude<OpenActionsChoice, "supersede_all">;
const choiceText: Record<DashboardChoice, string> = {
  keep: "Keep them: pending approvals stay open and approved calls may still run.",
  supersede_pending: "Close pending approvals: the agents must ask again under the restored version.",
};
const dashboardChoices = Object.keys(choiceText) as DashboardChoice[];

/** Rollback (SPEC 3.6): a superseded version restored as a new version, and what happens to open actions. */
export function RollbackDialog({
  orgId,
  detail,
  onClose,
  onDone,
}: {
  orgId: string;
  detail: PolicyDetail;
  onClose: () => void;
  onDone: (r: Rollback) => void;
}) {
  const { policy, versions } = detail;
  const queryClient = useQueryClient();
  const superseded = versions.filter((v) => v.status === "superseded");
  const [to, setTo] = useState(superseded[0]?.id ?? "");
  const [openActions, setOpenActions] = useState<DashboardChoice>("keep");
  const [note, setNote] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function rollBack() {
    setBusy(true);
    setError(null);
    try {
      const r = await policies.rollback(orgId, policy.id, {
        expected_active_version_id: policy.active_version_id,
        to_version_id: to,
        open_actions: openActions,
        ...(note.trim() ? { note: note.trim() } : {}),
      });
      await queryClient.invalidateQueries({ queryKey: policyKeys.one(policy.id) });
      await queryClient.invalidateQueries({ queryKey: policyKeys.status(orgId) });
      onDone(r);
    } catch (err) {
      setError(err);
      await queryClient.invalidateQueries({ queryKey: policyKeys.one(policy.id) });
    } finally {
      setBusy(false);
    }
  }

  const chosen = superseded.find((v) => v.id === to);
  const active = versions.find((v) => v.id === policy.active_version_id);
  return (
    <Dialog title={`Roll back ${policy.name}`} onClose={onClose}>
      <Stack gap="md">
        {superseded.length === 0 ? (
          <Text>No version of this policy was ever superseded: there is nothing to roll back to.</Text>
        ) : (
          <>
            <Text fw={500} data-testid="rollback-consequence">
              Every agent of {policy.name} is decided at once by version {chosen?.number ?? "?"}, restored as
              a new version; {active ? `version ${active.number} stops deciding` : "no version is active now"}
              . A rollback also lifts an emergency stop.
            </Text>
            <NativeSelect
              label="Restore"
              value={to}
              onChange={(e) => setTo(e.currentTarget.value)}
              data={superseded.map((v) => ({
                value: v.id,
                label: `Version ${v.number}${v.note ? `: ${v.note}` : ""}`,
              }))}
            />
            <Radio.Group
              name="open_actions"
              label="Open actions decided under other versions"
              value={openActions}
              onChange={(v) => {
                const c = dashboardChoices.find((x) => x === v);
                if (c) setOpenActions(c);
              }}
            >
              <Stack gap="xs" mt="xs">
                {dashboardChoices.map((c) => (
                  <Radio key={c} value={c} label={choiceText[c]} />
                ))}
              </Stack>
            </Radio.Group>
            <Textarea
              label="Note (optional)"
              value={note}
              onChange={(e) => setNote(e.currentTarget.value)}
              autosize
              minRows={2}
              maxLength={2000}
            />
          </>
        )}
        <ErrorNotice error={error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          {superseded.length > 0 && (
            <Button color="red" onClick={rollBack} loading={busy} disabled={!to}>
              Roll back
            </Button>
          )}
        </Group>
      </Stack>
    </Dialog>
  );
}
