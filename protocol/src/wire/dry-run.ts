import { z } from "zod";
import type { AgentExplanation, Explanation } from "../policy/index.js";
import { agentStatuses } from "./agents.js";
import { amountMappingSchema } from "./tools.js";

/** The dry run (SPEC 4.5): the Gateway's decision on current configuration, written nowhere. */

/** SPEC 4.5: what a dry run does not check. */
export const dryRunSkipped = [
  "gateway_key_authentication",
  "per_key_rate_limits",
  "signed_task_verification",
  "upstream_address",
  "upstream_credential",
  "upstream_reachability",
  "checks_before_execution",
] as const;

/** POST /orgs/<org_id>/agents/<agent_id>/dry-run. */
export const dryRunRequestSchema = z.strictObject({
  tool: z.string().min(1).max(128),
  arguments: z.record(z.string(), z.unknown()).default({}),
  environment: z.enum(["live", "test"]).default("live"),
  idempotency_key: z.string().min(1).max(200).optional(),
  /** A hypothetical policy version, decided under enforce. */
  policy_version_id: z.uuid().optional(),
  /** Decide as if no observe window were open. */
  ignore_observe_window: z.boolean().default(false),
});
export type DryRunRequest = z.input<typeof dryRunRequestSchema>;

/**
 * Members whose shape another part owns are open objects here: a policy
 * explanation (protocol/src/policy/explain) and the body the Gateway's
 * POST /v1/authorize would answer (core/src/decision/answers.ts).
 */
const openObject = z.record(z.string(), z.unknown());
const anObject = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);
const explanation = z.custom<Explanation>(anObject, "an explanation");
const agentExplanation = z.custom<AgentExplanation>(anObject, "an agent explanation");
const effect = z.enum(["allow", "require_approval", "deny"]);
const verdictKind = z.enum(["refused", "denied", "allowed", "approval"]);

export const dryRunReportSchema = z.strictObject({
  outcome: z.enum(["not_decided", "resumes_recorded_action", "decided"]),
  recorded_action_id: z.uuid().optional(),
  agent: z.strictObject({ id: z.uuid(), name: z.string(), status: z.enum(agentStatuses) }),
  arguments: z.strictObject({ valid: z.literal(true), digest: z.string() }),
  tool: z
    .strictObject({
      id: z.uuid(),
      exposed_name: z.string(),
      upstream_name: z.string(),
      action: z.string(),
      execution: z.enum(["caller", "gateway"]),
      enabled: z.boolean(),
      binding_authorized: z.boolean(),
      amount_mapping: amountMappingSchema.nullable(),
    })
    .nullable(),
  principal: z.strictObject({ kid: z.string(), status: z.string() }).nullable(),
  skipped: z.array(z.enum(dryRunSkipped)).readonly(),
  amount: z.strictObject({ amount: z.string(), currency: z.string() }).nullable(),
  delegation: z
    .strictObject({
      id: z.uuid(),
      object_id: z.string(),
      permissions: z.array(z.string()),
      expires_at: z.string(),
    })
    .nullable(),
  delegations_active: z.number().int().optional(),
  policy: z
    .strictObject({
      id: z.uuid(),
      name: z.string(),
      version_id: z.uuid().nullable(),
      version: z.number().int().nullable(),
      digest: z.string().nullable(),
      emergency_stopped: z.boolean(),
      hypothetical: z.boolean(),
    })
    .nullable(),
  decision: z
    .strictObject({
      kind: verdictKind,
      code: z.string().nullable(),
      detail: z.string().nullable(),
      policy_effect: effect.nullable(),
      rule_id: z.string().nullable(),
      enforcement: z.enum(["enforce", "observe"]).nullable(),
      relaxed: z.boolean(),
      observe_window: z.strictObject({ id: z.uuid(), ends_at: z.string() }).nullable(),
      observe_window_ignored: z.boolean(),
    })
    .nullable(),
  approvers: z
    .strictObject({
      roles: z.array(z.string()),
      approver_count: z.number().int(),
      approval_ttl_seconds: z.number().int(),
      resolved: z.boolean(),
      members: z.number().int().optional(),
      identities: z.number().int().optional(),
      code: z.string().optional(),
      detail: z.string().optional(),
      members_with_role: z.number().int().optional(),
    })
    .nullable(),
  plan: z
    .strictObject({
      plan: z.string(),
      monthly_limit: z.number().int().nullable(),
      used_this_month: z.number().int(),
      would_be_refused: z.boolean(),
    })
    .nullable(),
  explanation: explanation.nullable(),
  agent_explanation: agentExplanation.nullable(),
  agent_would_receive: z.strictObject({ http: z.number().int(), body: openObject }),
  shadow: z
    .strictObject({
      version_id: z.uuid(),
      version: z.number().int(),
      kind: verdictKind,
      code: z.string().nullable(),
      policy_effect: effect.nullable(),
      rule_id: z.string().nullable(),
    })
    .nullable(),
});

export type DryRunReport = z.infer<typeof dryRunReportSchema>;
export const dryRunAnswerSchema = z.strictObject({ dry_run: dryRunReportSchema });
