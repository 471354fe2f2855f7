import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useParams } from "react-router";
import { approvalsApi } from "../../api/approvals.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { Amount } from "../../components/Amount.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { Loaded } from "../../components/Loading.js";
import { CallArguments } from "./CallArguments.js";
import { proposalOf, signDecision, type AnsweredApproval } from "../../crypto/approval-signing.js";
import { personalKeys } from "../../crypto/personal-key.js";
import { useSignedIn } from "../../session/session.js";

/**
 * One request with the exact call it would allow, decided with the person's key. It is read once
 * (and again after a decision): what the person approves is what they read, and a decision made
 * meanwhile by someone else comes back as ALREADY_DECIDED rather than changing under their cursor.
 */
export function ApprovalPage() {
  const { orgId, org } = useCurrentOrganization();
  const { approvalId = "" } = useParams();
  const session = useSignedIn();
  const queryClient = useQueryClient();
  const request = useQuery(approvalsApi.query(orgId, approvalId));
  const mine = useQuery({
    queryKey: ["personal-keys", session.user.id],
    queryFn: () => personalKeys(session.user.id),
    retry: false,
  });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const mayDecide = org ? can.decideApprovals(org.role) : false;

  async function decide(a: AnsweredApproval, type: "APPROVAL" | "REJECTION") {
    setBusy(true);
    setError(null);
    try {
      const decision = await signDecision(session.user.id, a, type);
      await approvalsApi.decide(orgId, a.id, decision);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
      await queryClient.invalidateQueries({ queryKey: ["approval", approvalId] });
      await queryClient.invalidateQueries({ queryKey: ["approvals", orgId] });
    }
  }

  return (
    <main>
      <p>
        <Link to={orgPath(orgId, "/approvals")}>← Approvals</Link>
      </p>
      <Loaded query={request}>
        {({ approval: a }) => {
          const call = proposalOf(a)?.body.payload.call;
          const expired =
            a.status === "expired" || (a.status === "pending" && Date.parse(a.expires_at) <= Date.now());
          const heldKid = mine.data?.find((k) => a.approver_kids.includes(k.kid))?.kid;
          return (
            <>
              <h1>
                {a.action?.agent?.name ?? "An agent"} asks to run {a.action?.tool}
              </h1>
              <dl className="facts" data-testid="call-details">
                <dt>Status</dt>
                <dd data-testid="approval-status">{a.status}</dd>
                <dt>Tool</dt>
                <dd>{call?.tool ?? a.action?.tool}</dd>
                <dt>Action</dt>
                <dd>{a.action?.action}</dd>
                <dt>Amount</dt>
                <dd data-testid="call-amount">
                  {a.action?.amount ? <Amount amount={a.action.amount} /> : "none (the tool maps no amount)"}
                </dd>
                <dt>Arguments</dt>
                <dd>
                  <CallArguments text={a.arguments ?? null} signedDigest={call?.arguments_digest} />
                </dd>
                <dt>Arguments digest</dt>
                <dd>
                  <code>{call?.arguments_digest ?? a.action?.arguments_digest}</code>
                </dd>
                <dt>Policy</dt>
                <dd>
                  version {String(a.policy?.version ?? "?")}, rule {a.policy?.rule_id ?? "default"}{" "}
                  <code>{a.policy?.digest}</code>
                </dd>
                <dt>Expires</dt>
                <dd>{new Date(a.expires_at).toLocaleString()}</dd>
                <dt>Who may approve</dt>
                <dd>
                  roles {(a.roles as string[] | undefined)?.join(", ")}; {a.approver_count} approval needed;
                  keys:{" "}
                  {a.approver_kids.map((k) => (
                    <code key={k}>{k === heldKid ? `${k} (yours, here)` : k} </code>
                  ))}
                </dd>
              </dl>
              {a.status !== "pending" ? (
                <p role="status">This request is {a.status}; it can no longer be decided.</p>
              ) : expired ? (
                <p role="status" data-code="EXPIRED">
                  This request has expired; the agent must ask again.
                </p>
              ) : a.approvers_left === 0 ? (
                <p className="warning" role="alert" data-testid="no-one-can-decide" data-code="NO_APPROVERS">
                  No one can decide this request any more: none of the keys it was made for is still bound to
                  a member with the role {a.roles.join(", ")}. A key bound since counts only for requests made
                  after it, so this one expires on {new Date(a.expires_at).toLocaleString()}; the agent then
                  asks again and is held for the keys bound now.
                </p>
              ) : !mayDecide ? (
                <p className="muted">Your role does not decide approvals.</p>
              ) : (
                <>
                  {!heldKid && (
                    <p className="warning" data-code="IDENTITY_MISSING">
                      None of your keys in this browser is among this request's approvers: bind a key under{" "}
                      <Link to="/account">Your account</Link>; it counts for requests made after it is bound.
                    </p>
                  )}
                  <button type="button" disabled={busy} onClick={() => decide(a, "APPROVAL")}>
                    Approve
                  </button>{" "}
                  <button type="button" disabled={busy} onClick={() => decide(a, "REJECTION")}>
                    Reject
                  </button>
                </>
              )}
              <ErrorNotice error={error} />
            </>
          );
        }}
      </Loaded>
    </main>
  );
}
