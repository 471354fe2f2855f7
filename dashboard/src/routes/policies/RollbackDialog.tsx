import { useState } from "react";
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

  return (
    <Dialog title={`Roll back ${policy.name}`} onClose={onClose}>
      {superseded.length === 0 ? (
        <p>No version of this policy was ever superseded: there is nothing to roll back to.</p>
      ) : (
        <>
          <label>
            Restore
            <select value={to} onChange={(e) => setTo(e.target.value)}>
              {superseded.map((v) => (
                <option key={v.id} value={v.id}>
                  Version {v.number}
                  {v.note ? `: ${v.note}` : ""}
                </option>
              ))}
            </select>
          </label>
          <fieldset>
            <legend>Open actions decided under other versions</legend>
            {dashboardChoices.map((c) => (
              <label key={c} className="check">
                <input
                  type="radio"
                  name="open_actions"
                  value={c}
                  checked={openActions === c}
                  onChange={() => setOpenActions(c)}
                />
                {choiceText[c]}
              </label>
            ))}
          </fieldset>
          <label>
            Note (optional)
            <textarea value={note} onChange={(e) => setNote(e.target.value)} rows={2} maxLength={2000} />
          </label>
        </>
      )}
      <ErrorNotice error={error} />
      <div className="row">
        {superseded.length > 0 && (
          <button type="button" className="primary" onClick={rollBack} disabled={busy || !to}>
            Roll back
          </button>
        )}
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
