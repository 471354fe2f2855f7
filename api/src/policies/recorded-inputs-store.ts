import type { RecordedInput } from "@countersign/protocol/policy";
import type { Queryable } from "@countersign/core/store";

/**
 * Recorded decisions as simulation inputs (SPEC 4.5): action, exposed tool
 * name, amount and currency, and the effect recorded at the time; never
 * arguments. Identical rows are grouped in PostgreSQL with their count.
 */
export interface RecordedQuery {
  organizationId: string;
  policyId: string;
  /** `agents`: agents using the policy now; `policy`: decisions made by this policy. */
  scope: "agents" | "policy";
  environment: "all" | "live" | "test";
  since: Date;
  until: Date;
  /** Only the newest n decisions (the impact preview's 2000). */
  newest?: number;
}

/** Denied before policy evaluation: replaying the policy says nothing about them. */
const NOT_EVALUABLE = ["INVALID_AMOUNT", "INVALID_TOOL_CONFIGURATION"];

export async function recordedInputs(db: Queryable, q: RecordedQuery): Promise<RecordedInput[]> {
  const who =
    q.scope === "agents"
      ? "pa.agent_id in (select id from agents where organization_id = $1 and policy_id = $2)"
      : "pa.policy_id = $2";
  const { rows } = await db.query<{
    tool_name: string;
    action: string;
    amount: string | null;
    currency: string | null;
    evaluable: boolean;
    policy_effect: "allow" | "require_approval" | "deny" | null;
    rule_id: string | null;
    n: string;
  }>(
    `with chosen as (
       select pa.tool_name, pa.action, pa.amount, pa.currency, pa.decision_code, pa.policy_effect, pa.rule_id
         from protected_actions pa
        where pa.organization_id = $1 and ${who}
          and pa.created_at >= $3 and pa.created_at < $4
          and ($5::text = 'all' or pa.environment = $5)
        order by pa.created_at desc
        limit $6)
     select tool_name, action, amount::text as amount, currency,
            not (coalesce(decision_code, '') = any($7)) as evaluable, policy_effect, rule_id, count(*) as n
       from chosen
      group by 1, 2, 3, 4, 5, 6, 7`,
    [q.organizationId, q.policyId, q.since, q.until, q.environment, q.newest ?? null, NOT_EVALUABLE],
  );
  return rows.map((r) => ({
    tool: r.tool_name,
    action: r.action,
    amount: r.amount,
    currency: r.currency,
    evaluable: r.evaluable,
    recorded: r.policy_effect ? { effect: r.policy_effect, rule_id: r.rule_id } : null,
    count: Number(r.n),
  }));
}
