import type { Agent } from "@countersign/protocol/wire";
import type { AgentRow } from "./store.js";

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
