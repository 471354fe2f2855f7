import { ServiceError } from "@countersign/protocol/errors";
import type { ActionStatus } from "@countersign/core/actions";
import type { Queryable } from "@countersign/core/store";

/**
 * The protected action record of SPEC 2.6 as the Cloud API reads it (docs/evidence-api.md
 * "Actions"); receipts and approval requests join it for the short form they carry as `action`.
 */
export const ACTION_COLUMNS = `
  pa.id, pa.status, pa.execution, pa.environment, pa.agent_id, ag.name as agent_name, pa.tool_id, pa.tool_name, pa.action,
  pa.error_code, pa.arguments_digest, pa.request_fingerprint, pa.idempotency_key, pa.amount::text as amount, pa.currency,
  pa.policy_id, pa.policy_version_id, pa.policy_version, pa.policy_digest, pa.rule_id, pa.policy_effect, pa.enforcement,
  pa.decision_code, pa.explanation, pa.approval_request_id, pa.receipt_id, pa.expires_at, pa.created_at, pa.updated_at,
  pa.evidence_deleted_at`;
export const ACTION_FROM = "protected_actions pa join agents ag on ag.id = pa.agent_id";

export interface ActionRow {
  id: string;
  status: ActionStatus;
  execution: "gateway" | "caller";
  environment: "live" | "test";
  agent_id: string;
  agent_name: string;
  tool_id: string | null;
  tool_name: string;
  action: string;
  error_code: string | null;
  arguments_digest: string;
  request_fingerprint: string;
  idempotency_key: string | null;
  amount: string | null;
  currency: string | null;
  policy_id: string | null;
  policy_version_id: string | null;
  policy_version: number | null;
  policy_digest: string | null;
  rule_id: string | null;
  policy_effect: "allow" | "require_approval" | "deny" | null;
  enforcement: "enforce" | "observe" | null;
  decision_code: string | null;
  explanation: unknown;
  approval_request_id: string | null;
  receipt_id: string | null;
  expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
  evidence_deleted_at: Date | null;
}

/** One action of the organization; NOT_FOUND when there is none. */
export async function readAction(db: Queryable, organizationId: string, id: string): Promise<ActionRow> {
  const { rows } = await db.query<ActionRow>(
    `select ${ACTION_COLUMNS} from ${ACTION_FROM} where pa.id = $1 and pa.organization_id = $2`,
    [id, organizationId],
  );
  if (!rows[0]) throw new ServiceError("NOT_FOUND", "protected action not found");
  return rows[0];
}

/** The list's filters (each optional) and its keyset position. */
export interface ActionFilter {
  status?: ActionStatus;
  agent_id?: string;
  tool?: string;
  action?: string;
  execution?: "gateway" | "caller";
  environment?: "live" | "test";
  policy_id?: string;
  since?: string;
  until?: string;
  /** `[created_at, id]` of the last item of the previous page. */
  after?: [string, string];
  limit: number;
}

/** Newest first, `limit` rows (the route asks one more to know whether a page follows). */
export async function listActions(
  db: Queryable,
  organizationId: string,
  f: ActionFilter,
): Promise<ActionRow[]> {
  const { rows } = await db.query<ActionRow>(
    `select ${ACTION_COLUMNS} from ${ACTION_FROM}
      where pa.organization_id = $1
        and ($2::text is null or pa.status = $2) and ($3::uuid is null or pa.agent_id = $3)
        and ($4::text is null or pa.tool_name = $4) and ($5::text is null or pa.action = $5)
        and ($6::text is null or pa.execution = $6) and ($7::text is null or pa.environment = $7)
        and ($8::uuid is null or pa.policy_id = $8)
        and ($9::timestamptz is null or pa.created_at >= $9) and ($10::timestamptz is null or pa.created_at < $10)
        and ($11::timestamptz is null or (pa.created_at, pa.id) < ($11::timestamptz, $12::uuid))
      order by pa.created_at desc, pa.id desc limit $13`,
    [
      organizationId,
      f.status ?? null,
      f.agent_id ?? null,
      f.tool ?? null,
      f.action ?? null,
      f.execution ?? null,
      f.environment ?? null,
      f.policy_id ?? null,
      f.since ?? null,
      f.until ?? null,
      f.after?.[0] ?? null,
      f.after?.[1] ?? null,
      f.limit,
    ],
  );
  return rows;
}
