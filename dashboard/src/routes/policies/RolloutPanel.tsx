import { useState } from "react";
import { Button, Group, Stack, Text, Title } from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import type { RolloutStage } from "@countersign/protocol/wire";
import { policies, type PolicyDetail, type PolicyVersion, policyKeys } from "../../api/policies.js";
import { failureOf } from "../../api/errors.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { EmergencyStopDialog } from "./EmergencyStopDialog.js";
import { RollbackDialog } from "./RollbackDialog.js";
import { RolloutTimeline } from "./RolloutTimeline.js";
import { ShadowPanel } from "./ShadowPanel.js";
import { VersionHistory } from "./VersionHistory.js";

/**
 * The rollout of SPEC 3.5 as people walk it: shadow a new version, then hold for approval what
 * it would deny (its require-approval copy made active), then enforce it; rollback and the
 * emergency stop for when it goes wrong. Activation itself is the dialog with the gates.
 */
export function RolloutPanel({
  orgId,
  detail,
  stage,
  mayWrite,
  mayAdminister,
  activate,
  notify,
}: {
  orgId: string;
  detail: PolicyDetail;
  stage: RolloutStage;
  mayWrite: boolean;
  mayAdminister: boolean;
  activate: (v: PolicyVersion, title?: string) => void;
  notify: (text: string) => void;
}) {
  const { policy, versions } = detail;
  const queryClient = useQueryClient();
  const [dialog, setDialog] = useState<"rollback" | "stop" | null>(null);
  const [error, setError] = useState<unknown>(null);
  const shadow = versions.find((v) => v.id === policy.shadow_version_id) ?? null;
  const stopped = policy.emergency_stopped_at !== null;

  async function requireApproval(target: PolicyVersion) {
    setError(null);
    try {
      let copyId: string;
      try {
        copyId = (
          await policies.requireApprovalCopy(
            orgId,
            policy.id,
            target.id,
            `require-approval copy of version ${target.number}`,
          )
        ).version.id;
      } catch (err) {
        // The copy was made before (a draft with the same document): use it.
        const failure = failureOf(err);
        if (failure?.code !== "DRAFT_EXISTS") throw err;
        copyId = String(failure.details?.version_id);
      }
      const fresh = await queryClient.fetchQuery({
        queryKey: policyKeys.one(policy.id),
        queryFn: () => policies.get(orgId, policy.id),
        staleTime: 0,
      });
      const copy = fresh.versions.find((v) => v.id === copyId);
      if (!copy) throw new Error(`the require-approval copy ${copyId} is not among the versions`);
      activate(
        copy,
        `Require approval: activate version ${copy.number}, the copy of version ${target.number}`,
      );
    } catch (err) {
      setError(err);
    }
  }

  return (
    <Stack gap="lg">
      <Stack gap="sm" component="section" aria-labelledby="rollout-heading">
        <Title order={2} size="h3" id="rollout-heading">
          Rollout
        </Title>
        <RolloutTimeline stage={stage} stopped={stopped} />
        {mayAdminister && !stopped && shadow && (
          <Group gap="sm" data-testid="stage-actions">
            {stage === "shadow" && (
              <Button variant="light" onClick={() => requireApproval(shadow)}>
                Require approval for what version {shadow.number} would deny
              </Button>
            )}
            <Button onClick={() => activate(shadow, `Enforce version ${shadow.number}`)}>
              Enforce version {shadow.number}
            </Button>
          </Group>
        )}
        <ErrorNotice error={error} />
        <VersionHistory orgId={orgId} detail={detail} mayReadAudit={mayAdminister} />
        {mayAdminister && (
          <Stack gap="xs" component="section" aria-labelledby="wrong-heading">
            <Title order={3} size="h4" id="wrong-heading">
              When it goes wrong
            </Title>
            <Text size="sm" c="dimmed">
              A rollback restores a superseded version as a new one; the emergency stop denies every call of
              this policy at once until a rollback.
            </Text>
            <Group gap="sm">
              <Button
                variant="default"
                onClick={() => {
                  notify("");
                  setDialog("rollback");
                }}
              >
                Roll back…
              </Button>
              {!stopped && policy.active_version_id && (
                <Button
                  color="red"
                  variant="light"
                  onClick={() => {
                    notify("");
                    setDialog("stop");
                  }}
                >
                  Emergency stop…
                </Button>
              )}
            </Group>
          </Stack>
        )}
      </Stack>
      <ShadowPanel orgId={orgId} detail={detail} mayWrite={mayWrite && !stopped} />
      {dialog === "rollback" && (
        <RollbackDialog
          orgId={orgId}
          detail={detail}
          onClose={() => setDialog(null)}
          onDone={(r) => {
            setDialog(null);
            notify(
              `Rolled back: version ${r.restored_version.number} restored as version ${r.version.number}; ${r.closed_actions} open action(s) closed.`,
            );
          }}
        />
      )}
      {dialog === "stop" && (
        <EmergencyStopDialog
          orgId={orgId}
          detail={detail}
          onClose={() => setDialog(null)}
          onDone={(closed) => {
            setDialog(null);
            notify(`Emergency stop: every call is denied; ${closed} open action(s) closed.`);
          }}
        />
      )}
    </Stack>
  );
}
