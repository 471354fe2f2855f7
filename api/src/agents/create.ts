import { inTransaction, type Pool } from "@countersign/core/store";
import type { OrganizationAccess } from "../access/enforce.js";
import { audit, type Actor } from "../audit/record.js";
import { isUniqueViolation } from "../http/shared.js";
import { checkQuota } from "../orgs/quota.js";
import { lockOrganization } from "../orgs/store.js";
import { checkPolicy, nameTaken } from "./policy-check.js";
import { countedAgents, insertAgent, readAgent, type AgentRow } from "./store.js";

/** A new agent within the plan's limit, audited as `agent.created`. */
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
      id = await insertAgent(db, o.id, input);
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
