import type { Agent } from "@countersign/protocol/wire";

export interface AgentRow {
  id: string;
  name: string;
  status: "active" | "disabled";
  policy_id: string | null;
  policy_name: string | null;
  created_at: Date;
}

export const AGENT_COLUMNS = `a.id, a.name, a.status, a.policy_id, p.name as policy_name, a.created_at`;
export const AGENT_FROM = `agents a left join policies p on p.id = a.policy_id`;

/** The agent record of SPEC 2.2; `managed_by` is added to every answer by api/src/kubernetes. */
export function agentJson(a: AgentRow): Agent {
  return {
    id: a.id,
    name: a.name,
    status: a.status,
    policy: a.policy_id ? { id: a.policy_id, name: a.policy_name } : null,
    created_at: a.created_at.toISOString(),
  };
}
