import { holdsIdempotencyKey } from "../../actions/index.js";
import type { Queryable } from "../../store/queryable.js";
import { statement } from "../../store/statement.js";
import { BUCKET, bucketTake, touchLastUsed } from "../bucket.js";
import { objectsJson, type DecisionWrite, type RecordOutcome } from "./decision-write.js";
import {
  actionInsert,
  approvalInsert,
  claimGuard,
  decisionReceiptInsert,
  eventsInsert,
  objectsInsert,
} from "./rows.js";

// One statement: the usage count first (count_usage_many, migrations 0014, 0030 and 0031: exact at
// a limited plan's limit without one row every decision queues on), and
// every row only when the count was taken, so "over the limit" records nothing
// and "recorded" is all or nothing. A concurrent decision with the same
// idempotency key fails the unique index, which undoes the count too.
function writeText(claimed: boolean, warm: boolean): string {
  // A warm write's own parameters follow the claim's, when there is one.
  const w = (n: number) => `$${(claimed ? 16 : 8) + n}`;
  const counted = warm
    ? `${warmAdmission(claimed ? "admitted, guard" : "admitted", w)} counted as (
  select 1 from bucket where count_usage_many($1, $2::bigint, 1) = 1`
    : `counted as (
  select 1 ${claimed ? "from guard" : ""} where count_usage_many($1, $2::bigint, 1) = 1`;
  return `
with ${claimed ? CLAIM_GUARD : ""} ${counted}
), action as (
  ${actionInsert({
    a: "a",
    organizationId: "$1",
    status: claimed ? "'executing'" : "a->>'status'",
    approvalRequestId: "($4::jsonb->>'id')::uuid",
    receiptId: "($5::jsonb->>'id')::uuid",
    claim: claimed ? "$9, $10::timestamptz" : "null, null",
    from: "counted, (select $3::jsonb as a) x",
  })}
  returning id
), approval as (
  ${approvalInsert({ r: "r", organizationId: "$1", actionId: "action.id", from: "action, (select $4::jsonb as r) x" })}
  returning 1
), objects as (
  ${objectsInsert({ objects: "$6::jsonb", organizationId: "$1", actionId: "action.id", from: "action" })}
  returning 1
), receipt as (
  ${decisionReceiptInsert({
    r: "r",
    bundle: "$7",
    organizationId: "$1",
    actionId: "action.id",
    from: "action, (select $5::jsonb as r) x",
  })}
  returning 1
), events as (
  ${eventsInsert({ events: "$8::jsonb", organizationId: "$1", from: "action" })}
  returning 1
)
select (select count(*) from action) as recorded${claimed ? ", (select count(*) from guard) as guarded" : ""}${
    warm
      ? `, (select count(*) from admitted) as current, (select count(*) from bucket) as admitted,
         (select count(*) from repeat) as repeated`
      : ""
  }`;
}

// A warm decision (warm-admission.ts) was made without reading: the
// organization's configuration revision must still be the one its key and
// context were read at, no action may be recorded under the call's
// idempotency key yet (a repeat, which a fresh admission finds and resumes;
// one recorded after this statement's snapshot fails the unique index, a
// race, as in a fresh decision), and the key's bucket must hold the call's tokens,
// taken here (the exact bucket of bucket.ts, locked until this commit). The
// key's last-used time is touched at most once a minute, as the admission does.
function warmAdmission(from: string, w: (n: number) => string): string {
  return `repeat as (
  select 1 from protected_actions pa
   where pa.agent_id = ($3::jsonb->>'agentId')::uuid and pa.idempotency_key = $3::jsonb->>'idempotencyKey'
     and ${holdsIdempotencyKey("pa")}
), admitted as (
  select 1 from configuration_revisions r
   where r.organization_id = $1 and r.revision = ${w(1)}::bigint and not exists (select 1 from repeat)
), bucket as (
  ${bucketTake({
    keyId: `${w(2)}::uuid`,
    from,
    cost: `${w(3)}::integer`,
    burst: `${w(4)}::integer`,
    refill: `${w(5)}::float8`,
    onlyWhenEnough: true,
  })}
  returning api_key_id, refilled_at
), touched as (
  ${touchLastUsed("bucket")}
),`;
}

// A claim made with the decision: its re-checks (rows.ts) hold, or nothing is written.
const CLAIM_GUARD = `guard as (
  ${claimGuard({
    select: "1",
    delegationId: "$11::uuid",
    policyId: "$12::uuid",
    policyVersionId: "$13::uuid",
    policyVersion: "$14::int",
    toolId: "$15::uuid",
    binding: "$16::jsonb",
  })}
),`;

const STATEMENTS = {
  plain: statement("decision_write", writeText(false, false)),
  claimed: statement("decision_write_claimed", writeText(true, false)),
  warm: statement("decision_write_warm", writeText(false, true)),
  warmClaimed: statement("decision_write_claimed_warm", writeText(true, true)),
};

function isUniqueViolation(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: string }).code === "23505";
}

/** count_usage_many's answer when a far-path count found the total inside the limit's margin (migration 0014). */
const COUNT_AGAIN = "CSRTY";

/** Write a decision in one round trip (two, the once a month an organization's count crosses into the margin). */
export async function recordDecision(db: Queryable, w: DecisionWrite): Promise<RecordOutcome> {
  try {
    return await writeDecision(db, w);
  } catch (err) {
    if ((err as { code?: string }).code !== COUNT_AGAIN) throw err;
    return writeDecision(db, w);
  }
}

async function writeDecision(db: Queryable, w: DecisionWrite): Promise<RecordOutcome> {
  const params: unknown[] = [
    w.action.organizationId,
    w.monthlyLimit,
    JSON.stringify(w.action),
    JSON.stringify(w.approval),
    JSON.stringify(w.receipt ? { ...w.receipt, bundle: undefined } : null),
    objectsJson(w.objects),
    w.receipt?.bundle ?? null,
    JSON.stringify(w.events),
  ];
  const c = w.claim;
  if (c)
    params.push(
      c.executionObjectId,
      c.deadline,
      c.delegationId,
      c.policyId,
      c.policyVersionId,
      c.policyVersion,
      c.toolId,
      JSON.stringify(c.binding),
    );
  const warm = w.warm;
  if (warm) params.push(warm.revision, warm.apiKeyId, warm.cost, BUCKET.burst, BUCKET.refillPerSecond);
  const text = warm
    ? c
      ? STATEMENTS.warmClaimed
      : STATEMENTS.warm
    : c
      ? STATEMENTS.claimed
      : STATEMENTS.plain;
  try {
    const { rows } = await db.query<{
      recorded: string;
      guarded?: string;
      current?: string;
      admitted?: string;
      repeated?: string;
    }>(text.with(params));
    const row = rows[0];
    if (warm && Number(row?.repeated) > 0) return "repeat";
    if (warm && Number(row?.current) !== 1) return "stale";
    if (warm && c && Number(row?.guarded) !== 1) return "stale";
    if (warm && Number(row?.admitted) !== 1) return "bucket_short";
    if (c && Number(row?.guarded) !== 1) return "claim_refused";
    return Number(row?.recorded) === 1 ? "recorded" : "plan_limit";
  } catch (err) {
    if (
      isUniqueViolation(err) &&
      (err as { constraint?: string }).constraint === "protected_actions_idempotency_key"
    ) {
      return "idempotency_conflict";
    }
    throw err;
  }
}
