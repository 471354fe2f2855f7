import { z } from "zod";
import { planNames } from "./organizations.js";

const quota = z.number().int().nullable();

/** GET .../billing: the plan in effect and its quotas (null: unlimited). */
export const billingSchema = z.strictObject({
  configured: z.boolean(),
  plan: z.enum(planNames),
  subscription: z.null(),
  quotas: z.strictObject({
    protected_actions_per_month: quota,
    members: quota,
    api_keys: quota,
    webhook_endpoints: quota,
    agents: quota,
    mcp_servers: quota,
    tools: quota,
    policies: quota,
    retention_days: quota,
  }),
});
export type Billing = z.infer<typeof billingSchema>;
