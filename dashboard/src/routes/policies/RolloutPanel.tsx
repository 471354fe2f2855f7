import { useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import type { RolloutStage } from "@countersign/protocol/wire";
import { policies, type PolicyDetail, type PolicyVersion, policyKeys } from "../../api/policies.js";
import { failureOf } from "../../api/errors.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { EmergencyStopDialog } from "./EmergencyStopDialog.js";
import { RollbackDialog } from "./RollbackDialog.js";
import { RolloutTimeline } from "./RolloutTimeline.js";
import { ShadowPanel } from "./ShadowPanel.js";

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
    <section aria-labelledby="rollout-heading">
      <h2 id="rollout-heading">Rollout</h2>
      <RolloutTimeline stage={stage} stopped={stopped} />
      {mayAdminister && !stopped && shadow && (
        <div className="row" data-testid="stage-actions">
          {stage === "shadow" && (
            <button type="button" onClick={() => requireApproval(shadow)}>
              Require approval for what version {shadow.number} would deny
            </button>
          )}
          <button type="button" onClick={() => activate(shadow, `Enforce version ${shadow.number}`)}>
            Enforce version {shadow.number}
          </button>
        </div>
      )}
      <ErrorNotice error={error} />
      <ShadowPanel orgId={orgId} detail={detail} mayWrite={mayWrite && !stopped} />
      {mayAdminister && (
        <>
          <h3>When it goes wrong</h3>
          <div className="row">
            <button
              type="button"
              onClick={() => {
                notify("");
                setDialog("rollback");
              }}
            >
              Roll back…
            </button>
            {!stopped && policy.active_version_id && (
              <button
                type="button"
                className="danger"
                onClick={() => {
                  notify("");
                  setDialog("stop");
                }}
              >
                Emergency stop…
              </button>
            )}
          </div>
        </>
      )}
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
    </section>
  );
}
