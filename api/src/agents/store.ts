import { ServiceError } from "@countersign/protocol/errors";
import type { Agent, AgentPatch } from "@countersign/protocol/wire";
import { inTransaction, type Pool, type Queryable } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import type { OrganizationAccess } from "../access/enforce.js";
import { checkQuota } from "../orgs/quota.js";
import { isUniqueViolation } from "../http/shared.js";
import { lockOrganization } from "../orgs/store.js";

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

/** The agent record of SPEC 2.2. */
export function agentJson(a: AgentRow): Agent {
  return {
    id: a.id,
    name: a.name,
    status: a.status,
    policy: a.policy_id ? { id: a.policy_id, name: a.policy_name } : null,
    created_at: a.created_at.toISOString(),
  };
}

const nameTaken = () => new ServiceError("NAME_TAKEN", "another agent of this organization has that name");

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

async function checkPolicy(db: Queryable, orgId: string, policyId: string | null): Promise<void> {
  if (policyId === null) return;
  const { rowCount } = await db.query("select 1 from policies where id = $1 and organization_id = $2", [
    policyId,
    orgId,
  ]);
  if (!rowCount)
    throw new ServiceError("POLICY_NOT_FOUND", "policy_id names no policy of this organization", {
      issues: [{ path: "policy_id", code: "not_found", message: "no such policy" }],
    });
}

/**
 * The agents the plan counts (SPEC 8.6, docs/configuration-api.md): those not disabled. A
 * disabled agent can make no request (its keys are refused at the key check), and disabling is
 * what removing an agent amounts to, there being no deletion (the operator disables the agent of
 * a deleted Agent resource): its record stays for the evidence naming it but holds no room.
 * Enabling one takes room as creating one does. The caller holds the organization's lock.
 */
async function countedAgents(db: Queryable, organizationId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    "select count(*)::int as n from agents where organization_id = $1 and status = 'active'",
    [organizationId],
  );
  return rows[0]!.n;
}

/** A new agent within the plan's limit, audited. */
export async function createAgent(
  pool: Pool,
  o: OrganizationAccess,
  input: { name: string; status: "active" | "disabled"; policy_id: string | null },
  actor: Actor,
): Promise<AgentRow> {
  return inTransaction(pool, async (db) => {
    // Serialize creations of one organization so the plan limit is exact.
    await lockOrganization(db, o.id);
    await checkPolicy(db, o.id, input.policy_id);
    if (input.status === "active") checkQuota(o.plan, "agents", await countedAgents(db, o.id));
    let id: string;
    try {
      const { rows } = await db.query<{ id: string }>(
        "insert into agents (organization_id, name, status, policy_id) values ($1, $2, $3, $4) returning id",
        [o.id, input.name, input.status, input.policy_id],
      );
      id = rows[0]!.id;
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken();
      throw err;
    }
    await audit(db, {
      organizationId: o.id,
      action: "agent.created",
      actor,
      target: { type: "agent", id },
      details: { name: input.name, status: input.status, policy_id: input.policy_id },
    });
    return readAgent(db, o.id, id);
  });
}

/**
 * Renames, enables or disables an agent, or switches its policy, auditing each kind of change.
 * `mayAssignPolicy` runs before a switch (switching is for Admins signed in).
 */
export async function updateAgent(
  pool: Pool,
  o: OrganizationAccess,
  agentId: string,
  b: AgentPatch,
  actor: Actor,
  mayAssignPolicy: () => void,
): Promise<AgentRow> {
  const orgId = o.id;
  return inTransaction(pool, async (db) => {
    // Enabling counts against the plan: the organization's lock first, as creation takes it.
    if (b.status === "active") await lockOrganization(db, orgId);
    const before = await readAgent(db, orgId, agentId, true);
    if (b.status === "active" && before.status !== "active")
      checkQuota(o.plan, "agents", await countedAgents(db, orgId));
    const switching = b.policy_id !== undefined && b.policy_id !== before.policy_id;
    if (switching) {
      mayAssignPolicy();
      await checkPolicy(db, orgId, b.policy_id!);
    }
    const changes = (["name", "status", "policy_id"] as const).filter(
      (k) => b[k] !== undefined && b[k] !== before[k],
    );
    if (changes.length === 0) return before;
    try {
      await db.query(
        "update agents set name = coalesce($2, name), status = coalesce($3, status), policy_id = case when $4 then $5::uuid else policy_id end where id = $1",
        [before.id, b.name ?? null, b.status ?? null, switching, b.policy_id ?? null],
      );
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken();
      throw err;
    }
    const target = { type: "agent", id: before.id };
    await audit(db, {
      organizationId: orgId,
      action: "agent.updated",
      actor,
      target,
      details: { fields: changes },
    });
    if (b.status !== undefined && b.status !== before.status) {
      await audit(db, {
        organizationId: orgId,
        action: b.status === "disabled" ? "agent.disabled" : "agent.enabled",
        actor,
        target,
      });
    }
    if (switching) {
      await audit(db, {
        organizationId: orgId,
        action: "agent.policy_switched",
        actor,
        target,
        details: { from_policy_id: before.policy_id, to_policy_id: b.policy_id },
      });
    }
    return readAgent(db, orgId, before.id);
  });
}
