import { z } from "zod";
import { AGENT_EXPLANATION_SCHEMA } from "../../policy/explain/agent.js";
import { gatewayInstant } from "./fields.js";

/**
 * `policy` of an authorization and of `_meta.service` (SPEC 4.2, docs/gateway.md "Answers"): present
 * only for a call decided under an observe window; `policy_effect` and `rule_id` only when the
 * organization discloses at least `rule`.
 */
export const observePolicySchema = z.object({
  enforcement: z.literal("observe"),
  relaxed: z.boolean(),
  observe_ends_at: gatewayInstant.nullable(),
  policy_effect: z.enum(["allow", "require_approval", "deny"]).nullable().optional(),
  rule_id: z.string().nullable().optional(),
});
export type ObservePolicy = z.infer<typeof observePolicySchema>;

/**
 * The agent explanation of a refusal (SPEC 2.9, schema `service.cloud/agent-explanation@1`), at
 * disclosure `rule` or `conditions`. The members every explanation has are checked; the rest
 * (`policy`, `decided_by`, `approval`, `conditions`, `amount_band`...) are described by SPEC 2.9 and
 * built by protocol/src/policy/explain/agent.ts, and stay open here so a client keeps reading
 * explanations that gain a member.
 */
export const agentExplanationSchema = z.looseObject({
  schema: z.literal(AGENT_EXPLANATION_SCHEMA),
  disclosure: z.enum(["rule", "conditions"]),
  message: z.string(),
});
export type AgentExplanationWire = z.infer<typeof agentExplanationSchema>;
