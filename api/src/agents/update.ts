import type { AgentPatch } from "@countersign/protocol/wire";
import { inTransaction, type Pool } from "@countersign/core/store";
import type { OrganizationAccess } from "../access/enforce.js";
import { audit, type Actor } from "../audit/record.js";
import { isUniqueViolation } from "../http/shared.js";
import { checkQuota } from "../orgs/quota.js";
import { lockOrganization } from "../orgs/store.js";
import { checkPolicy, nameTaken } from "./policy-check.js";
import { countedAgents, readAgent, updateAgentRow, type AgentRow } from "./store.js";

/**
 * Renames, enables or disables an agent, or switches its policy, auditing each kind of change
 * (`agent.updated`, `agent.enabled`/`agent.disabled`, `agent.policy_switched`).
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
      await updateAgentRow(db, before.id, b, switching);
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
