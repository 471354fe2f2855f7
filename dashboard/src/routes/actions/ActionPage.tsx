import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useParams } from "react-router";
import { actionsApi } from "../../api/actions.js";
import { approvalsApi } from "../../api/approvals.js";
import { receiptsApi } from "../../api/receipts.js";
import type { Action } from "@countersign/protocol/wire";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { Amount } from "../../components/Amount.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { Loaded } from "../../components/Loading.js";
import { signCancellationHere } from "../../crypto/principal-signing.js";
import { usePrincipal } from "../principal/PrincipalPage.js";
import { JsonBlock } from "../../components/JsonBlock.js";

const openStatuses = new Set(["pending_approval", "approved", "authorized"]);

/** The TASK an action's thread starts with: from its approval request, or from its receipt. */
async function taskOf(orgId: string, a: Action): Promise<string> {
  const task = a.approval_request_id
    ? (await approvalsApi.get(orgId, a.approval_request_id)).approval.task_object_id
    : null;
  if (task) return task;
  if (a.receipt_id) return (await receiptsApi.get(orgId, a.receipt_id)).receipt.thread_id;
  throw new Error("this action has no approval request or receipt naming its TASK");
}

export function ActionPage() {
  const { orgId, org } = useCurrentOrganization();
  const { actionId = "" } = useParams();
  const queryClient = useQueryClient();
  const principal = usePrincipal(orgId);
  const action = useQuery(actionsApi.query(orgId, actionId));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const kid = principal.data?.principal?.kid;
  return (
    <main>
      <Loaded query={action}>
        {({ action: a }) => (
          <>
            <h1>
              {a.agent?.name}: {a.tool}
            </h1>
            <dl className="facts">
              <dt>Status</dt>
              <dd data-testid="action-status">{a.status}</dd>
              <dt>Action</dt>
              <dd>{a.action}</dd>
              <dt>Amount</dt>
              <dd>
                <Amount amount={a.amount} />
              </dd>
              <dt>Arguments digest</dt>
              <dd>
                <code>{a.arguments_digest}</code>
              </dd>
              <dt>Execution</dt>
              <dd>{a.execution}</dd>
              {a.receipt_id && (
                <>
                  <dt>Receipt</dt>
                  <dd>
                    <Link to={orgPath(orgId, `/receipts/${a.receipt_id}`)}>{a.receipt_id}</Link>
                  </dd>
                </>
              )}
            </dl>
            <h2>Explanation</h2>
            <JsonBlock
              value={{ policy: a.policy, decision_code: a.decision_code, explanation: a.explanation }}
              label="Explanation"
            />
            {org && can.administer(org.role) && openStatuses.has(a.status) && (
              <>
                <button
                  type="button"
                  disabled={busy || !kid}
                  onClick={async () => {
                    setBusy(true);
                    setError(null);
                    try {
                      if (!kid) throw new Error("this organization has no principal");
                      const cancellation = await signCancellationHere(
                        orgId,
                        kid,
                        await taskOf(orgId, a),
                        "cancelled in the dashboard",
                      );
                      await actionsApi.cancel(orgId, a.id, cancellation);
                      await queryClient.invalidateQueries({ queryKey: ["action", actionId] });
                    } catch (err) {
                      setError(err);
                    } finally {
                      setBusy(false);
                    }
                  }}
                >
                  Cancel this action (signed with the principal key)
                </button>
                <ErrorNotice error={error} />
              </>
            )}
          </>
        )}
      </Loaded>
    </main>
  );
}
