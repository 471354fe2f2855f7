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

/** The per-key token bucket of SPEC 8.2, shared by every replica (take_tokens, migrations 0003 and 0013). */
export const BUCKET = { burst: 120, refillPerSecond: 20 } as const;

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
// decision context of the key's agent. The statement is its own transaction,
// committed without waiting for the WAL flush (synchronous_commit off for it
// alone): the decision's write, the second round trip, waits for a flush that
// covers this commit too, so an acknowledged decision's bucket change is
// durable and a decision waits for one flush, not two. A database crash can
// forget at most the last fraction of a second of bucket changes of refused
// or unanswered calls: a key gets those few tokens back.
const ADMIT = statement(
  "gateway_admission",
  `with presented as (
     select ${KEY_COLUMNS}, k.secret_hmac = $2 as genuine from ${KEY_FROM} where k.prefix = $1
   ), bucket as (
     select take_tokens(presented.id, $3, $4, $5) as wait, set_config('synchronous_commit', 'off', true)
       from presented where presented.genuine
   )
   select presented.*, (select wait from bucket) as wait, context.row as context
     from presented
     left join lateral (
       select row_to_json(c) as row from (${contextQuery({
         organizationId: "presented.organization_id",
         agentId: "presented.agent_id",
         tool: "$6::text",
         defaultPlan: "$7::text",
         idempotencyKey: "$8::text",
       })}) c
     ) context on presented.genuine and $9::boolean`,
);

/**
 * The Gateway's key check (SPEC 5.4) and rate limit (8.2) in one round trip,
 * with the decision context when the call's tool is known: a decision is this
 * read and one write. Refusals keep their order: an unusable key is refused
 * before the rate limit is told.
 */
export async function admitGatewayCall(
  db: Queryable,
  hashKey: Buffer,
  text: string,
  cost: number,
  intent: CallIntent | null,
): Promise<Admission> {
  const parsed = parseKey(text);
  if (!parsed) return { check: { ok: false, reason: "malformed" }, waitSeconds: 0, context: undefined };
  const hmac = hashSecret(hashKey, parsed.secret);
  const { rows } = await db.query<KeyRow & { wait: number | null; context: unknown }>(
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
    ]),
  );
  const row = rows[0];
  const check = checkKeyRow(parsed, hmac, row, "gateway");
  if (!check.ok) return { check, waitSeconds: 0, context: undefined };
  return {
    check,
    waitSeconds: row!.wait ?? 0,
    context: row!.context ? contextOf(check.key.organizationId, row!.context) : undefined,
  };
}
