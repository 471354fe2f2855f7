import type { QueryResult } from "pg";
import { KEY_COLUMNS, KEY_FROM, type KeyRow } from "../keys/index.js";
import type { Queryable } from "../store/queryable.js";
import { statement } from "../store/statement.js";
import type { CallIntent } from "./admission.js";
import { BUCKET, bucketTake, touchLastUsed } from "./bucket.js";
import { contextQuery } from "./context-store.js";
import { heldParameters, type HeldEvidence } from "./context-cache.js";

// The first of a decision's two round trips: the key by its prefix, the
// tokens of its bucket (taken only when the presented secret's HMAC is the
// stored one, so nobody drains a key's bucket by knowing its prefix), and the
// decision context of the key's agent, as one JSON value beside the key's
// columns (measured: the Gateway parses it faster than some thirty plain
// columns, for a few microseconds more in PostgreSQL).
//
// The bucket is exact across replicas (bucket.ts). The key's last-used time
// is touched at most once a minute. With the context comes the organization's
// configuration revision it was read at (migration 0026), for the process's
// warm admissions (warm-admission.ts).
//
// The statement is its own transaction, committed without waiting for the WAL
// flush (synchronous_commit off for it alone): the decision's write, the
// second round trip, waits for a flush that covers this commit too, so an
// acknowledged decision's bucket change is durable and a decision waits for
// one flush, not two. A database crash can forget at most the last fraction
// of a second of bucket changes of refused or unanswered calls: a key gets
// those few tokens back.
const ADMIT = statement(
  "gateway_admission",
  `with presented as (
     select ${KEY_COLUMNS}, k.expires_at, k.secret_hmac = $2 as genuine from ${KEY_FROM} where k.prefix = $1
   ), bucket as (
     ${bucketTake({
       keyId: "presented.id",
       from: "presented where presented.genuine",
       cost: "$3::integer",
       burst: "$4::integer",
       refill: "$5::float8",
       onlyWhenEnough: false,
     })}
     returning api_key_id, refilled_at, wait, set_config('synchronous_commit', 'off', true)
   ), touched as (
  ${touchLastUsed("bucket")}
   )
   select presented.*, (select wait from bucket) as wait, context.row as context,
          (select r.revision::text from configuration_revisions r
            where r.organization_id = presented.organization_id and context.row is not null) as configuration_revision
     from presented
     left join lateral (
       select row_to_json(c) as row from (${contextQuery({
         organizationId: "presented.organization_id",
         agentId: "presented.agent_id",
         tool: "$6::text",
         defaultPlan: "$7::text",
         idempotencyKey: "$8::text",
         heldPrincipalRevision: "$10::bigint",
         heldDelegations: "$11::uuid[]",
       })}) c
     ) context on presented.genuine and $9::boolean`,
);

export type AdmissionRow = KeyRow & {
  expires_at: Date | null;
  wait: number | null;
  context: unknown;
  configuration_revision: string | null;
};

/**
 * The key of `prefix`, its bucket's tokens taken when `hmac` is the stored one, and with an
 * intent the decision context of its agent (admission.ts reads the row).
 */
export function admissionRows(
  db: Queryable,
  prefix: string,
  hmac: Buffer,
  cost: number,
  intent: CallIntent | null,
  held: HeldEvidence,
): Promise<QueryResult<AdmissionRow>> {
  return db.query<AdmissionRow>(
    ADMIT.with([
      prefix,
      hmac,
      cost,
      BUCKET.burst,
      BUCKET.refillPerSecond,
      intent?.tool ?? null,
      intent?.defaultPlan ?? null,
      intent?.idempotencyKey ?? null,
      intent !== null,
      ...heldParameters(held),
    ]),
  );
}
