import type { Queryable } from "../../store/queryable.js";
import { holdsIdempotencyKey } from "../../actions/index.js";
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

/**
 * Most decisions one transaction writes: a far-path usage count of a limited
 * plan can be in flight this many times per transaction, which count_usage's
 * margin allows for (migration 0027, `usage_counts_per_transaction()`; a test
 * holds the two equal).
 */
export const MAX_BATCH = 32;

/** Whether a write can share a batch: a warm write only for one token (the batch takes one per key). */
export function batchable(w: DecisionWrite): boolean {
  return !w.warm || w.warm.cost === 1;
}

/**
 * The batch's key, for what may not appear twice in one batch: a key's bucket
 * row is changed once per statement, and two writes with one idempotency key
 * would fail the unique index for both.
 */
export function batchKeys(w: DecisionWrite): string[] {
  const keys = [`key:${w.action.apiKeyId}`];
  if (w.action.idempotencyKey !== null) keys.push(`idem:${w.action.agentId}:${w.action.idempotencyKey}`);
  return keys;
}

// The single write of store.ts for many decisions: each input row carries one
// DecisionWrite (and, when warm, its ticket), and every condition of the
// single statement holds row by row (a warm row: its organization's revision,
// no action under its idempotency key, its key's bucket; a claimed row: the
// claim's re-checks; every row: its usage count), so each row's outcome is the
// one the single statement would give it. The rows are counted once per
// organization and plan limit (count_usage_many, migration 0030): an
// unlimited plan's (a null limit) all in the connection's shard, a limited
// plan's all of them far from the limit, and as many as fit within its
// margin, the first rows first.
// Each row's lookups (its idempotency key, its organization's revision, its
// claim's rows) are subqueries correlated to the row, so they are index scans
// whatever the planner estimates for the batch: a join could hash every
// organization's revision or every active delegation.
// Rows come sorted by organization and key (batcher.ts): concurrent
// batches lock buckets and count usage in one order. The signed objects and
// events come apart from the rows ($2, $3: one array per row), so the CTEs
// carry each row's small JSON only, and the bundles as one binary parameter
// ($4, each row's slice named by its offset and length) that PostgreSQL reads
// without parsing (a bytea[] went through array_in: 5% of the machine's CPU).
const BATCH = statement(
  "decision_write_batch",
  `with input as materialized (
  select e.ord::int as n, e.d from jsonb_array_elements($1::jsonb) with ordinality e(d, ord)
), repeat as (
  select i.n from input i cross join lateral (
    select 1 from protected_actions pa
     where pa.agent_id = (i.d->'action'->>'agentId')::uuid and pa.idempotency_key = i.d->'action'->>'idempotencyKey'
       and ${holdsIdempotencyKey("pa")}
     limit 1) pa
   where i.d->'warm' <> 'null'::jsonb
), unchanged as materialized (
  select i.n, i.d from input i
   where i.d->'warm' = 'null'::jsonb
      or ((select r.revision from configuration_revisions r
            where r.organization_id = (i.d->'action'->>'organizationId')::uuid limit 1) = (i.d->'warm'->>'revision')::bigint
          and not exists (select 1 from repeat p where p.n = i.n))
), guard as materialized (
  select i.n from input i cross join lateral (
    ${claimGuard({
      select: "1",
      delegationId: "(i.d->'claim'->>'delegationId')::uuid",
      policyId: "(i.d->'claim'->>'policyId')::uuid",
      policyVersionId: "(i.d->'claim'->>'policyVersionId')::uuid",
      policyVersion: "(i.d->'claim'->>'policyVersion')::int",
      toolId: "(i.d->'claim'->>'toolId')::uuid",
      binding: "i.d->'claim'->'binding'",
    })}
  ) g
   where i.d->'claim' <> 'null'::jsonb
), admitted as materialized (
  select c.n, c.d from unchanged c
   where c.d->'claim' = 'null'::jsonb or exists (select 1 from guard g where g.n = c.n)
), bucket as (
  ${bucketTake({
    keyId: "(a.d->'warm'->>'apiKeyId')::uuid",
    from: "admitted a",
    where: "a.d->'warm' <> 'null'::jsonb",
    cost: "1",
    burst: "$5::integer",
    refill: "$6::float8",
    onlyWhenEnough: true,
  })}
  returning api_key_id, refilled_at
), touched as (
  ${touchLastUsed("bucket")}
), taken as materialized (
  select a.n, a.d from admitted a where a.d->'warm' = 'null'::jsonb
  union all
  select a.n, a.d from admitted a join bucket b on b.api_key_id = (a.d->'warm'->>'apiKeyId')::uuid
), usage_counts as materialized (
  select o.organization_id, o.monthly_limit, count_usage_many(o.organization_id, o.monthly_limit, o.decisions) as counted from (
    select (t.d->'action'->>'organizationId')::uuid as organization_id, (t.d->>'monthlyLimit')::bigint as monthly_limit,
           count(*)::int as decisions
      from taken t group by 1, 2 order by 1) o
), counted as materialized (
  select t.n, t.d from (
    select t.n, t.d, row_number() over (partition by t.d->'action'->>'organizationId', t.d->>'monthlyLimit' order by t.n) as rank
      from taken t) t
    join usage_counts u
      on u.organization_id = (t.d->'action'->>'organizationId')::uuid
     and u.monthly_limit is not distinct from (t.d->>'monthlyLimit')::bigint
   where t.rank <= u.counted
), action as (
  ${actionInsert({
    a: "c.d->'action'",
    organizationId: "(c.d->'action'->>'organizationId')::uuid",
    status: "case when c.d->'claim' = 'null'::jsonb then c.d->'action'->>'status' else 'executing' end",
    approvalRequestId: "(c.d->'approval'->>'id')::uuid",
    receiptId: "(c.d->'receipt'->>'id')::uuid",
    claim: "c.d->'claim'->>'executionObjectId', (c.d->'claim'->>'deadline')::timestamptz",
    from: "counted c",
  })}
  returning id, organization_id
), recorded as materialized (
  select c.n, c.d, action.id as action_id, action.organization_id
    from counted c join action on action.id = (c.d->'action'->>'id')::uuid
), approval as (
  ${approvalInsert({ r: "c.d->'approval'", organizationId: "c.organization_id", actionId: "c.action_id", from: "recorded c" })}
), objects as (
  ${objectsInsert({ objects: "$2::jsonb->(c.n - 1)", organizationId: "c.organization_id", actionId: "c.action_id", from: "recorded c" })}
), receipt as (
  ${decisionReceiptInsert({
    r: "c.d->'receipt'",
    bundle: "substring($4::bytea from (c.d->>'bundleAt')::int + 1 for (c.d->>'bundleLength')::int)",
    organizationId: "c.organization_id",
    actionId: "c.action_id",
    from: "recorded c",
  })}
), events as (
  ${eventsInsert({ events: "$3::jsonb->(c.n - 1)", organizationId: "c.organization_id", from: "recorded c" })}
)
select i.n,
       exists (select 1 from recorded r where r.n = i.n) as recorded,
       exists (select 1 from repeat p where p.n = i.n) as repeated,
       exists (select 1 from unchanged c where c.n = i.n) as current,
       exists (select 1 from guard g where g.n = i.n) as guarded,
       exists (select 1 from taken t where t.n = i.n) as admitted
  from input i order by i.n`,
);

interface BatchRow {
  n: number;
  recorded: boolean;
  repeated: boolean;
  current: boolean;
  guarded: boolean;
  admitted: boolean;
}

/**
 * Writes `writes` (each `batchable`, no two sharing a `batchKeys` entry) in
 * one statement and one commit, and says each one's outcome as
 * recordDecision would have. Throws when the statement fails (an idempotency
 * race, a count that must go to the exact path, a lost connection): nothing of
 * the batch was written, and the caller writes them one by one.
 */
export async function recordDecisions(db: Queryable, writes: DecisionWrite[]): Promise<RecordOutcome[]> {
  const bundles: Buffer[] = [];
  let at = 0;
  const input = writes.map((w) => {
    const bundle = w.receipt?.bundle;
    const row = {
      action: w.action,
      approval: w.approval,
      receipt: w.receipt ? { ...w.receipt, bundle: undefined } : null,
      monthlyLimit: w.monthlyLimit,
      warm: w.warm ?? null,
      claim: w.claim ?? null,
      bundleAt: bundle ? at : null,
      bundleLength: bundle ? bundle.length : null,
    };
    if (bundle) {
      bundles.push(bundle);
      at += bundle.length;
    }
    return row;
  });
  const { rows } = await db.query<BatchRow>(
    BATCH.with([
      JSON.stringify(input),
      objectsJson(writes.map((w) => w.objects)),
      JSON.stringify(writes.map((w) => w.events)),
      Buffer.concat(bundles),
      BUCKET.burst,
      BUCKET.refillPerSecond,
    ]),
  );
  return writes.map((w, i) => {
    const row = rows[i]!;
    if (w.warm) {
      if (row.repeated) return "repeat";
      if (!row.current) return "stale";
      if (w.claim && !row.guarded) return "stale";
      if (!row.admitted) return "bucket_short";
    }
    if (w.claim && !row.guarded) return "claim_refused";
    return row.recorded ? "recorded" : "plan_limit";
  });
}
