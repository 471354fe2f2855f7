import type { Queryable } from "../store/queryable.js";
import { statement } from "../store/statement.js";
import { receiptInsert } from "./receipts.js";
import type { FinishedAction } from "./transitions-store.js";

// `finish` (transitions-store.ts) for many executions in one statement: each row's
// RESULT, receipt and receipt.created are written only while its action is
// still executing, as the single statement does. The results and RESULT
// objects come apart from the rows ($2, $3), and the bundles as one binary
// parameter ($4, sliced), as in core/src/decision/record/batch-store.ts.
const RESULTS = statement(
  "execution_results",
  `with input as materialized (
     select e.ord::int as n, e.d from jsonb_array_elements($1::jsonb) with ordinality e(d, ord)
   ), finished as (
     update protected_actions pa
        set status = i.d->>'status', error_code = i.d->>'errorCode', result = nullif($2::jsonb->(i.n - 1), 'null'::jsonb),
            result_object_id = i.d->>'resultObjectId', receipt_id = (i.d->'receipt'->>'id')::uuid, updated_at = now()
       from input i
      where pa.id = (i.d->>'actionId')::uuid and pa.status = 'executing'
     returning i.n, i.d
   ), object as (
     insert into signed_objects (object_id, organization_id, protected_action_id, type, object)
     select f.d->>'resultObjectId', (f.d->>'organizationId')::uuid, (f.d->>'actionId')::uuid, 'RESULT', $3::jsonb->(f.n - 1)
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
         bundle: "substring($4::bytea from (f.d->>'bundleAt')::int + 1 for (f.d->>'bundleLength')::int)",
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
  let at = 0;
  const rows = items.map((f) => {
    const row = {
      actionId: f.actionId,
      organizationId: f.organizationId,
      status: f.status,
      errorCode: f.errorCode,
      resultObjectId: f.resultObject.id,
      receipt: { ...f.receipt, bundle: undefined },
      receiptCreated: f.receiptCreated,
      bundleAt: at,
      bundleLength: f.receipt.bundle.length,
    };
    at += f.receipt.bundle.length;
    return row;
  });
  // The result and the RESULT object are JSON text already: placed as they are, not parsed again.
  const { rows: answers } = await db.query<{ recorded: boolean }>(
    RESULTS.with([
      JSON.stringify(rows),
      `[${items.map((f) => f.result ?? "null").join(",")}]`,
      `[${items.map((f) => f.resultObject.json).join(",")}]`,
      Buffer.concat(items.map((f) => f.receipt.bundle)),
    ]),
  );
  return answers.map((r) => r.recorded);
}
