/**
 * What can happen to a recorded action (SPEC 2.6, 3.1, 3.2): every change of its state after the
 * decision, each one statement that names the states it starts from and says whether it applied.
 * A caller that holds the action's row lock and has read its state gets `true`; a caller racing
 * another change gets `false` instead of overwriting it.
 */
import type { Queryable } from "../store/queryable.js";
import { statement } from "../store/statement.js";
import { receiptInsert } from "./receipts.js";
import { CANCELLABLE_STATUSES } from "./status.js";

const applied = (r: { rowCount: number | null }) => (r.rowCount ?? 0) > 0;

// A closing of an approved action the Gateway or a hand-out found it may not run any more.
const CLOSE_APPROVED = `update protected_actions set status = $2, decision_code = $3, decision_detail = $4, updated_at = now()
  where id = $1 and status = 'approved'`;

/** approved → denied: something the call relied on changed (a stop, the delegation, the tool). */
export async function deny(db: Queryable, id: string, code: string, detail: string): Promise<boolean> {
  return applied(await db.query(CLOSE_APPROVED, [id, "denied", code, detail]));
}

/** approved → expired: its authorization or approval ran out, or a rollback covers it (SUPERSEDED). */
export async function expire(db: Queryable, id: string, code: string, detail: string): Promise<boolean> {
  return applied(await db.query(CLOSE_APPROVED, [id, "expired", code, detail]));
}

/**
 * pending_approval → expired, with its approval request, when the request ran out and nobody
 * decided (SPEC 3.2: "closed without running"), at the moment someone looks at it. Conditional
 * on both states, so a concurrent decision by a person wins or loses cleanly.
 */
export async function expireLapsedApproval(db: Queryable, actionId: string): Promise<boolean> {
  return applied(
    await db.query(
      `with lapsed as (
         update approval_requests set status = 'expired'
          where protected_action_id = $1 and status = 'pending' and expires_at <= now()
         returning protected_action_id)
       update protected_actions set status = 'expired', decision_code = 'APPROVAL_EXPIRED',
              decision_detail = 'the approval request expired before anyone decided; a new call gets a new decision', updated_at = now()
        where id in (select protected_action_id from lapsed) and status = 'pending_approval'`,
      [actionId],
    ),
  );
}

const PERSON_DECIDED = `update protected_actions set status = $2, decision_code = $3, receipt_id = coalesce($4, receipt_id), updated_at = now()
  where id = $1 and status = 'pending_approval'`;

/** pending_approval → approved: a person's APPROVAL; the Gateway hands it out or runs it next. */
export async function approve(db: Queryable, id: string): Promise<boolean> {
  return applied(await db.query(PERSON_DECIDED, [id, "approved", "APPROVAL_PENDING", null]));
}

/** pending_approval → rejected: a person's REJECTION, closed by its receipt. */
export async function reject(db: Queryable, id: string, receiptId: string): Promise<boolean> {
  return applied(await db.query(PERSON_DECIDED, [id, "rejected", "REJECTED", receiptId]));
}

/** pending_approval or approved → cancelled by an admin's CANCELLATION, closed by its receipt. */
export async function markCancelled(
  db: Queryable,
  id: string,
  receiptId: string,
  now: Date,
): Promise<boolean> {
  return applied(
    await db.query(
      `update protected_actions set status = 'cancelled', decision_code = 'CANCELLED', receipt_id = $2, updated_at = $3
        where id = $1 and status = any($4::text[])`,
      [id, receiptId, now, CANCELLABLE_STATUSES],
    ),
  );
}

/** The authorization receipt over a person's APPROVAL, as `authorizeApproved` stores it. */
export interface GrantedReceipt {
  id: string;
  kind: string;
  receiptObjectId: string;
  threadId: string;
  headObjectId: string;
  outcome: string;
  issuerKid: string;
  bundle: Buffer;
  bundleSha256: string;
}

const AUTHORIZE_APPROVED = `with authorized as (
   update protected_actions set status = 'authorized', receipt_id = $2, expires_at = $12, updated_at = now()
    where id = $1 and status = 'approved'
   returning id, organization_id),
 receipt as (
   ${receiptInsert(
     {
       id: "$2::uuid",
       organizationId: "authorized.organization_id",
       protectedActionId: "authorized.id",
       kind: "$3",
       receiptObjectId: "$4",
       threadId: "$5",
       headObjectId: "$6",
       outcome: "$7",
       issuerKid: "$8",
       bundle: "$9",
       bundleSha256: "$10",
     },
     "from authorized",
   )}),
 events as (
   insert into events (organization_id, type, data)
   select authorized.organization_id, e->>'type', e->'data' from authorized, jsonb_array_elements($11::jsonb) e)
 select count(*)::int as applied from authorized`;

/**
 * approved → authorized for a decision-only call (SPEC 3.2 row 4): the receipt, its events and
 * the authorization until `expiresAt`, in one statement.
 */
export async function authorizeApproved(
  db: Queryable,
  a: { actionId: string; receipt: GrantedReceipt; events: unknown[]; expiresAt: Date },
): Promise<boolean> {
  const r = a.receipt;
  const { rows } = await db.query<{ applied: number }>(AUTHORIZE_APPROVED, [
    a.actionId,
    r.id,
    r.kind,
    r.receiptObjectId,
    r.threadId,
    r.headObjectId,
    r.outcome,
    r.issuerKid,
    r.bundle,
    r.bundleSha256,
    JSON.stringify(a.events),
    a.expiresAt,
  ]);
  return rows[0]?.applied === 1;
}

// The EXECUTION and the executing state in one statement (the hot path: a named statement).
const CLAIM = statement(
  "execution_claim",
  `with executing as (
     update protected_actions set status = 'executing', execution_object_id = $2, execution_deadline = $3, updated_at = now()
      where id = $1 and status = 'approved'
     returning id)
   insert into signed_objects (object_id, organization_id, protected_action_id, type, object)
   select $2, $4, executing.id, 'EXECUTION', $5 from executing`,
);

/** approved → executing: the Gateway's claim, with its signed EXECUTION, until `deadline`. */
export async function markExecuting(
  db: Queryable,
  c: {
    actionId: string;
    organizationId: string;
    executionObjectId: string;
    execution: unknown;
    deadline: Date;
  },
): Promise<boolean> {
  return applied(
    await db.query(
      CLAIM.with([
        c.actionId,
        c.executionObjectId,
        c.deadline,
        c.organizationId,
        JSON.stringify(c.execution),
      ]),
    ),
  );
}

// The RESULT, its receipt, receipt.created and the action's final state in one statement, and
// only while the action is still executing: a recovery that closed it first (it locks the row)
// leaves nothing for this write to do, and the update waits for it and then finds nothing.
const RESULT = statement(
  "execution_result",
  `with finished as (
       update protected_actions set status = $15, error_code = $16, result = $17, result_object_id = $3, receipt_id = $5, updated_at = now()
        where id = $1 and status = 'executing'
       returning id),
     object as (
       insert into signed_objects (object_id, organization_id, protected_action_id, type, object) select $3, $2, $1, 'RESULT', $4 from finished),
     receipt as (
       ${receiptInsert(
         {
           id: "$5",
           organizationId: "$2",
           protectedActionId: "$1",
           kind: "$6",
           receiptObjectId: "$7",
           threadId: "$8",
           headObjectId: "$9",
           outcome: "$10",
           issuerKid: "$11",
           bundle: "$12",
           bundleSha256: "$13",
         },
         "from finished",
       )}),
     event as (
       insert into events (organization_id, type, data) select $2, 'receipt.created', $14 from finished)
   select count(*)::int as recorded from finished`,
);

/** What `finish` records: the signed RESULT, its receipt and `receipt.created`'s data. */
export interface FinishedAction {
  actionId: string;
  organizationId: string;
  status: "succeeded" | "failed";
  errorCode: string | null;
  /** The upstream result kept for repeats (JSON text), or null. */
  result: string | null;
  resultObject: { id: string; json: string };
  receipt: GrantedReceipt;
  receiptCreated: unknown;
}

/** executing → succeeded or failed: the RESULT, its receipt and event, in one statement. */
export async function finish(db: Queryable, f: FinishedAction): Promise<boolean> {
  const r = f.receipt;
  const { rows } = await db.query<{ recorded: number }>(
    RESULT.with([
      f.actionId,
      f.organizationId,
      f.resultObject.id,
      f.resultObject.json,
      r.id,
      r.kind,
      r.receiptObjectId,
      r.threadId,
      r.headObjectId,
      r.outcome,
      r.issuerKid,
      r.bundle,
      r.bundleSha256,
      JSON.stringify(f.receiptCreated),
      f.status,
      f.errorCode,
      f.result,
    ]),
  );
  return rows[0]?.recorded === 1;
}
