import {
  checkKeyRow,
  hashSecret,
  KEY_COLUMNS,
  KEY_FROM,
  parseKey,
  type KeyCheck,
  type KeyRow,
} from "../keys/index.js";
import type { Queryable } from "../store/queryable.js";
import { statement } from "../store/statement.js";
import { contextOf, contextQuery, type DecisionContext } from "./context.js";
import { heldParameters, NOTHING_HELD, type ContextCache } from "./context-cache.js";
import { BUCKET, bucketTake, touchLastUsed } from "./bucket.js";
import type { WarmAdmissions } from "./warm-admission.js";

/** What a call's decision is about, when the Gateway already knows it at the key check. */
export interface CallIntent {
  tool: string;
  idempotencyKey: string | null;
  defaultPlan: string;
}

export interface Admission {
  check: KeyCheck;
  /** Seconds until the bucket holds the call's cost; 0 when the tokens were taken. */
  waitSeconds: number;
  /** The decision context, read in the same statement when an intent was given and the key is genuine. */
  context: DecisionContext | undefined;
}

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

type AdmissionRow = KeyRow & {
  expires_at: Date | null;
  wait: number | null;
  context: unknown;
  configuration_revision: string | null;
};

/**
 * The Gateway's key check (SPEC 5.4) and rate limit (8.2) in one round trip,
 * with the decision context when the call's tool is known: a decision is this
 * read and one write. Refusals keep their order: an unusable key is refused
 * before the rate limit is told. `cache` is the process's held evidence
 * (context-cache.ts): what it holds is not sent again, and it learns what was.
 *
 * `warm`: the process's warm admissions. With `use`, a call whose key and
 * context they hold at the organization's current revision is admitted with
 * no round trip at all, its decision made in one write that re-checks the
 * revision and takes the tokens (a context with a WarmTicket); a fresh
 * admission teaches them what it read.
 */
export async function admitGatewayCall(
  db: Queryable,
  hashKey: Buffer,
  text: string,
  cost: number,
  intent: CallIntent | null,
  cache?: ContextCache,
  warm?: { admissions: WarmAdmissions; use: boolean },
): Promise<Admission> {
  const parsed = parseKey(text);
  if (!parsed) return { check: { ok: false, reason: "malformed" }, waitSeconds: 0, context: undefined };
  const hmac = hashSecret(hashKey, parsed.secret);
  if (intent && warm?.use) {
    const hit = warm.admissions.admit(parsed, hmac, cost, intent);
    if (hit)
      return {
        check: { ok: true, key: hit.key },
        waitSeconds: 0,
        context: { ...hit.context, warm: hit.ticket },
      };
  }
  const held = intent && cache ? cache.heldForKey(parsed.prefix) : NOTHING_HELD;
  const { rows } = await db.query<AdmissionRow>(
    ADMIT.with([
      parsed.prefix,
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
  const row = rows[0];
  const check = checkKeyRow(parsed, hmac, row, "gateway");
  if (!check.ok) return { check, waitSeconds: 0, context: undefined };
  const key = check.key;
  if (row!.context && cache) cache.rememberKey(parsed.prefix, key.organizationId, key.agentId!);
  const context = row!.context ? contextOf(key.organizationId, row!.context, held, cache) : undefined;
  if (context && intent && warm && row!.configuration_revision !== null)
    warm.admissions.remember(
      parsed.prefix,
      hmac,
      key,
      row!.expires_at,
      row!.configuration_revision,
      intent,
      context,
    );
  return { check, waitSeconds: row!.wait ?? 0, context };
}
