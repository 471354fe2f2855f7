import { z } from "zod";
import { planNames } from "./organizations.js";

const counts = z.record(z.string(), z.number().int());

/** GET .../overview: what happened in the last `days` days. */
export const overviewSchema = z.strictObject({
  period: z.strictObject({ days: z.number().int(), from: z.string(), to: z.string() }),
  actions: z.strictObject({
    total: z.number().int(),
    by_status: counts,
    by_policy_effect: counts,
    by_environment: counts,
  }),
  receipts: z.strictObject({ by_outcome: counts }),
  approvals: z.strictObject({ pending: z.number().int() }),
  agents: z.strictObject({ active: z.number().int() }),
});
export type Overview = z.infer<typeof overviewSchema>;

/** A figure against its plan limit (null: unlimited). */
const figure = z.strictObject({ used: z.number().int(), limit: z.number().int().nullable() });

/** GET .../usage: the plan's figures, and protected actions month by month, newest first. */
export const usageSchema = z.strictObject({
  plan: z.enum(planNames),
  month: z.string(),
  protected_actions: figure,
  months: z.array(z.strictObject({ month: z.string(), protected_actions: z.number().int() })),
  members: figure,
  api_keys: figure,
  webhook_endpoints: figure,
  agents: figure,
  mcp_servers: figure,
  tools: figure,
  policies: figure,
  retention_days: z.number().int().nullable(),
});
export type Usage = z.infer<typeof usageSchema>;
