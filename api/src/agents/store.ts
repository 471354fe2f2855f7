import { ServiceError } from "@countersign/protocol/errors";
import type { Queryable } from "@countersign/core/store";

/** Agents as stored (SPEC 2.2), with the name of the policy they are decided by. */
export interface AgentRow {
  id: string;
  name: string;
  status: "active" | "disabled";
  policy_id: string | null;
  policy_name: string | null;
  created_at: Date;
}

const COLUMNS = `a.id, a.name, a.status, a.policy_id, p.name as policy_name, a.created_at`;
const FROM = `agents a left join policies p on p.id = a.policy_id`;

/** One agent of the organization (locked for update when asked), or 404. */
export async function readAgent(
  db: Queryable,
  orgId: string,
  agentId: string,
  lock = false,
): Promise<AgentRow> {
  const { rows } = await db.query<AgentRow>(
    `select ${COLUMNS} from ${FROM} where a.id = $1 and a.organization_id = $2${lock ? " for update of a" : ""}`,
    [agentId, orgId],
  );
  if (!rows[0]) throw new ServiceError("NOT_FOUND", "agent not found");
  return rows[0];
}

/** A page of the organization's agents, newest first, after the `[created_at, id]` cursor. */
export async function listAgents(
  db: Queryable,
  orgId: string,
  q: { status?: string; after?: [string, string]; limit: number },
): Promise<AgentRow[]> {
  const { rows } = await db.query<AgentRow>(
    `select ${COLUMNS} from ${FROM} where a.organization_id = $1 and ($2::text is null or a.status = $2)
       and ($3::timestamptz is null or (a.created_at, a.id) < ($3::timestamptz, $4::uuid))
     order by a.created_at desc, a.id desc limit $5`,
    [orgId, q.status ?? null, q.after?.[0] ?? null, q.after?.[1] ?? null, q.limit],
  );
  return rows;
}

/** Whether the policy is the organization's. */
export async function policyExists(db: Queryable, orgId: string, policyId: string): Promise<boolean> {
  const { rowCount } = await db.query("select 1 from policies where id = $1 and organization_id = $2", [
    policyId,
    orgId,
  ]);
  return !!rowCount;
}

/**
 * The agents the plan counts (SPEC 8.6, docs/configuration-api.md): those not disabled. A
 * disabled agent can make no request (its keys are refused at the key check), and disabling is
 * what removing an agent amounts to, there being no deletion (the operator disables the agent of
 * a deleted Agent resource): its record stays for the evidence naming it but holds no room.
 * Enabling one takes room as creating one does. The caller holds the organization's lock.
 */
export async function countedAgents(db: Queryable, organizationId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    "select count(*)::int as n from agents where organization_id = $1 and status = 'active'",
    [organizationId],
  );
  return rows[0]!.n;
}

/** Insert an agent; its id. A name the organization already has fails with a unique violation. */
export async function insertAgent(
  db: Queryable,
  orgId: string,
  a: { name: string; status: "active" | "disabled"; policy_id: string | null },
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    "insert into agents (organization_id, name, status, policy_id) values ($1, $2, $3, $4) returning id",
    [orgId, a.name, a.status, a.policy_id],
  );
  return rows[0]!.id;
}

/** Set the given fields of an agent (undefined: unchanged; the policy only when `switching`). */
export async function updateAgentRow(
  db: Queryable,
  agentId: string,
  b: { name?: string; status?: "active" | "disabled"; policy_id?: string | null },
  switching: boolean,
): Promise<void> {
  await db.query(
    "update agents set name = coalesce($2, name), status = coalesce($3, status), policy_id = case when $4 then $5::uuid else policy_id end where id = $1",
    [agentId, b.name ?? null, b.status ?? null, switching, b.policy_id ?? null],
  );
}
