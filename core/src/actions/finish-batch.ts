import { GroupCommit } from "../store/group-commit.js";
import type { Queryable } from "../store/queryable.js";
import { statement } from "../store/statement.js";
import { receiptInsert } from "./receipts.js";
import { finish, type FinishedAction } from "./transitions.js";

// `finish` (transitions.ts) for many executions in one statement: each row's
// RESULT, receipt and receipt.created are written only while its action is
// still executing, as the single statement does.
const RESULTS = statement(
  "execution_results",
  `with input as materialized (
     select e.ord::int as n, e.d from jsonb_array_elements($1::jsonb) with ordinality e(d, ord)
   ), finished as (
     update protected_actions pa
        set status = i.d->>'status', error_code = i.d->>'errorCode', result = nullif(i.d->'result', 'null'::jsonb),
            result_object_id = i.d->>'resultObjectId', receipt_id = (i.d->'receipt'->>'id')::uuid, updated_at = now()
       from input i
      where pa.id = (i.d->>'actionId')::uuid and pa.status = 'executing'
     returning i.n, i.d
   ), object as (
     insert into signed_objects (object_id, organization_id, protected_action_id, type, object)
     select f.d->>'resultObjectId', (f.d->>'organizationId')::uuid, (f.d->>'actionId')::uuid, 'RESULT', f.d->'resultObject'
       from finished f
   ), receipt as (
     ${receiptInsert(
       {
         id: "(f.d->'receipt'->>'id')::uuid",
         organizationId: "(f.d->>'organizationId')::uuid",
         protectedActionId: "(f.d->>'actionId')::uuid",
         kind: "f.d->'receipt'->>'kind'",
         receiptObjectId: "f.d->'receipt'->>'receiptObjectId'",
         threadId: "f.d->'receipt'->>'threadId'",
         headObjectId: "f.d->'receipt'->>'headObjectId'",
         outcome: "f.d->'receipt'->>'outcome'",
         issuerKid: "f.d->'receipt'->>'issuerKid'",
         bundle: "($2::bytea[])[f.n]",
         bundleSha256: "f.d->'receipt'->>'bundleSha256'",
       },
       "from finished f",
     )}
   ), event as (
     insert into events (organization_id, type, data)
     select (f.d->>'organizationId')::uuid, 'receipt.created', f.d->'receiptCreated' from finished f
   )
   select i.n, exists (select 1 from finished f where f.n = i.n) as recorded from input i order by i.n`,
);

/**
 * Records many executions' RESULTs at once; each is true when its action was still executing.
 * Throws when the statement fails, having written nothing.
 */
export async function finishMany(db: Queryable, items: FinishedAction[]): Promise<boolean[]> {
  // The result and the RESULT object are JSON text already: placed as they are, not parsed again.
  const input = `[${items
    .map(
      (f) =>
        `{"actionId":${JSON.stringify(f.actionId)},"organizationId":${JSON.stringify(f.organizationId)},` +
        `"status":${JSON.stringify(f.status)},"errorCode":${JSON.stringify(f.errorCode)},` +
        `"result":${f.result ?? "null"},"resultObjectId":${JSON.stringify(f.resultObject.id)},` +
        `"resultObject":${f.resultObject.json},"receipt":${JSON.stringify({ ...f.receipt, bundle: undefined })},` +
        `"receiptCreated":${JSON.stringify(f.receiptCreated)}}`,
    )
    .join(",")}]`;
  const { rows } = await db.query<{ recorded: boolean }>(
    RESULTS.with([input, items.map((f) => f.receipt.bundle)]),
  );
  return rows.map((r) => r.recorded);
}

/** How many RESULT writes one process has in flight; see record-batcher.ts for why two. */
const IN_FLIGHT = 2;
const MAX_BATCH = 32;

/**
 * One process's RESULT writes, batched when they queue (store/group-commit.ts): each answers
 * as `finish` would, a failed batch is written again one at a time.
 */
export class ResultWriter {
  private readonly batches: GroupCommit<FinishedAction, boolean>;

  constructor(db: Queryable, inFlight = IN_FLIGHT) {
    this.batches = new GroupCommit({
      one: (f) => finish(db, f),
      many: (fs) => finishMany(db, fs),
      keys: (f) => [f.actionId],
      order: (f) => f.actionId,
      max: MAX_BATCH,
      inFlight,
    });
  }

  finish(f: FinishedAction): Promise<boolean> {
    return this.batches.write(f);
  }
}
