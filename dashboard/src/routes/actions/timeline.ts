/**
 * An action's state transitions in the order they happened, with who did each (issue 42 point 5),
 * read only from what the Cloud API returns: the action record (its decision), its approval request
 * (created, decided by a key, expired), its receipts, and the newest receipt's signed chain (the
 * EXECUTION, RESULT and CANCELLATION steps and the names in the signers' identity documents).
 * Nothing is guessed: a step the API does not show is not drawn, and the action's current state is
 * added at its last change when no recorded step explains it.
 *
 * The order follows the workflow (SPEC 2.8: TASK, PROPOSAL, APPROVAL or REJECTION, EXECUTION,
 * RESULT; a CANCELLATION after the TASK), not a sort by time: the records' times come from the
 * database and the signed steps' from their signers, and a receipt written in the same transaction
 * as a step can carry an earlier time than the step it closes.
 */
import type { Action, Approval, ReceiptDetail, ReceiptListItem } from "@countersign/protocol/wire";

export interface TimelineEntry {
  key: string;
  /** The state word the step leads to, shown as a StatusBadge. */
  status: string;
  title: string;
  /** Who did it, as the API names them (a person's name or e-mail from their signed identity). */
  who: string | null;
  at: string | null;
  detail: string | null;
  receipt?: { id: string; label: string };
}

export interface TimelineSources {
  action: Action;
  approval: Approval | null;
  /** Every receipt of the action, in any order. */
  receipts: readonly ReceiptListItem[];
  /** The newest receipt's detail (its chain covers every earlier step); null without one. */
  newest: ReceiptDetail | null;
  /** The reader's own active personal keys: their decisions read "you". */
  ownKids: ReadonlySet<string>;
}

const decisionWords = {
  allow: { status: "allowed", title: "Decided: allowed" },
  require_approval: { status: "require_approval", title: "Decided: approval required" },
  deny: { status: "denied", title: "Decided: denied" },
} as const;

const nowWords: Record<string, string> = {
  pending_approval: "Waiting for approval",
  approved: "Approved",
  authorized: "Authorized",
  executing: "Executing",
  succeeded: "Succeeded",
  failed: "Failed",
  rejected: "Rejected",
  cancelled: "Cancelled",
  denied: "Denied",
  expired: "Expired",
};

export function actionTimeline({
  action: a,
  approval,
  receipts,
  newest,
  ownKids,
}: TimelineSources): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  const nameOf = (kid: string | null | undefined): string | null => {
    if (!kid) return null;
    const signer = newest?.participants.find((p) => p.kid === kid);
    const name = signer?.name ?? signer?.subject_id ?? kid;
    return ownKids.has(kid) ? `you (${name})` : name;
  };
  const step = (type: string) => newest?.chain.find((s) => s.type === type);
  const placed = new Set<string>();
  const receiptEntries = (match: (r: ReceiptListItem) => boolean) => {
    for (const r of [...receipts].sort((x, y) => x.created_at.localeCompare(y.created_at))) {
      if (placed.has(r.id) || !match(r)) continue;
      placed.add(r.id);
      entries.push({
        key: `receipt-${r.id}`,
        status: r.kind === "authorization" && r.outcome === "granted" ? "authorized" : r.outcome,
        title: `Receipt issued: ${r.kind}, ${r.outcome}`,
        who: nameOf(r.issuer_kid),
        at: r.created_at,
        detail: null,
        receipt: { id: r.id, label: `Open the ${r.kind} receipt (${r.outcome})` },
      });
    }
  };

  const effect = a.policy?.policy_effect;
  const decided = effect ? decisionWords[effect] : { status: "denied", title: "Decided: denied" };
  const rule = a.policy
    ? `policy version ${a.policy.version ?? "?"}, rule ${a.policy.rule_id ?? "default"}`
    : null;
  entries.push({
    key: "decided",
    status: a.status === "denied" ? "denied" : decided.status,
    title: a.status === "denied" ? "Decided: denied" : decided.title,
    who: `the Gateway, asked by ${a.agent.name}`,
    at: a.created_at,
    detail: [rule, a.decision_code].filter(Boolean).join("; ") || null,
  });

  if (approval) {
    entries.push({
      key: "approval-requested",
      status: "pending",
      title: "Approval requested",
      who: `from ${approval.roles.join(", ")}`,
      at: approval.created_at,
      detail: `${approval.approver_count} approval needed, by ${new Date(approval.expires_at).toLocaleString()}`,
    });
    receiptEntries((r) => r.outcome === "pending");
    if (approval.status === "approved" || approval.status === "rejected") {
      const signed = step(approval.status === "approved" ? "APPROVAL" : "REJECTION");
      entries.push({
        key: "approval-decided",
        status: approval.status,
        title: `${approval.status === "approved" ? "Approved" : "Rejected"} by ${nameOf(approval.decided_by_kid) ?? "a person"}`,
        who: null,
        at: approval.decided_at ?? signed?.issued_at ?? null,
        detail: approval.decided_by_kid ? `signed with key ${approval.decided_by_kid}` : null,
      });
    } else if (approval.status === "expired") {
      entries.push({
        key: "approval-expired",
        status: "expired",
        title: "Approval request expired",
        who: "no one decided it in time",
        at: approval.expires_at,
        detail: null,
      });
    } else if (approval.status === "superseded") {
      entries.push({
        key: "approval-superseded",
        status: "superseded",
        title: "Approval request closed by a policy change",
        who: null,
        at: approval.decided_at,
        detail: null,
      });
    }
    receiptEntries((r) => r.kind === "authorization");
  }

  const cancellation = step("CANCELLATION");
  if (cancellation)
    entries.push({
      key: "cancelled",
      status: "cancelled",
      title: `Cancelled by ${nameOf(cancellation.actor) ?? "the organization"}`,
      who: null,
      at: cancellation.issued_at,
      detail: null,
    });
  const execution = step("EXECUTION");
  if (execution)
    entries.push({
      key: "executing",
      status: "executing",
      title: "Executing",
      who: nameOf(execution.actor),
      at: execution.issued_at,
      detail: null,
    });
  const result = step("RESULT");
  if (result && newest) {
    const outcome = newest.result.status === "succeeded" ? "succeeded" : "failed";
    entries.push({
      key: "result",
      status: outcome,
      title: outcome === "succeeded" ? "Succeeded" : "Failed",
      who: nameOf(result.actor),
      at: result.issued_at,
      detail: newest.result.error_code,
    });
  }
  receiptEntries(() => true);

  // The current state, when no step above leads to it (an execution under way, a lapse, a
  // cancellation whose receipt is gone…): at the action's last change, which is when it began.
  const shown = new Set(entries.map((e) => (e.status === "pending" ? "pending_approval" : e.status)));
  if (!shown.has(a.status))
    entries.push({
      key: "now",
      status: a.status,
      title: nowWords[a.status] ?? a.status,
      who: null,
      at: a.updated_at,
      detail: a.error_code,
    });
  return entries;
}
