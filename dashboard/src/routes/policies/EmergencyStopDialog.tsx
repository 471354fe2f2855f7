import { useState } from "react";
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
  const name = detail.policy.name;
  async function stop() {
    setError(null);
    try {
      const s = await policies.emergencyStop(orgId, detail.policy.id);
      await queryClient.invalidateQueries({ queryKey: policyKeys.one(detail.policy.id) });
      await queryClient.invalidateQueries({ queryKey: policyKeys.status(orgId) });
      onDone(s.closed_actions);
    } catch (err) {
      setError(err);
    }
  }
  return (
    <Dialog title={`Emergency stop of ${name}`} onClose={onClose}>
      <p>
        Every call of every agent under this policy is denied at once, pending approvals and approved calls
        not yet run are closed, and observe windows end. Only a rollback lifts the stop.
      </p>
      <label>
        Type the policy's name, {name}, to confirm
        <input value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" />
      </label>
      <ErrorNotice error={error} />
      <div className="row">
        <button type="button" className="danger" onClick={stop} disabled={typed !== name}>
          Stop every call
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
