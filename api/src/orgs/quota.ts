import { ServiceError } from "@countersign/protocol/errors";
import { quotas, type Plan, type Quotas } from "@countersign/core/plans";

type Counted = Exclude<keyof Quotas, "protectedActionsPerMonth" | "retentionDays">;

/**
 * Each counted item by its wire name (the member of GET .../billing `quotas`, given as
 * `details.limit`) and as SPEC 8.6 names it in prose, with what counts.
 */
const counted: Record<Counted, { wire: string; words: string }> = {
  members: { wire: "members", words: "members (pending invitations included)" },
  apiKeys: { wire: "api_keys", words: "API keys that are not revoked" },
  webhookEndpoints: { wire: "webhook_endpoints", words: "webhook endpoints" },
  agents: { wire: "agents", words: "agents that are not disabled" },
  mcpServers: { wire: "mcp_servers", words: "MCP servers" },
  tools: { wire: "tools", words: "tools" },
  policies: { wire: "policies", words: "policies" },
};

/**
 * Refuse a creation that would exceed the plan (SPEC 8.6): 402
 * PLAN_LIMIT_EXCEEDED, naming the limit by its wire name. Existing items are
 * never touched by a limit.
 */
export function checkQuota(plan: Plan, what: Counted, current: number): void {
  const limit = quotas[plan][what];
  if (limit !== null && current >= limit) {
    const { wire, words } = counted[what];
    throw new ServiceError("PLAN_LIMIT_EXCEEDED", `the ${plan} plan allows ${limit} ${words}`, {
      limit: wire,
      plan,
      quota: limit,
    });
  }
}
