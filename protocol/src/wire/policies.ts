import { z } from "zod";

/**
 * Policies and their versions as the Cloud API answers them (docs/policy-rollout.md):
 * GET .../policies items and `{policy}`, `{version}` and `versions` of the policy routes.
 * Documents, examples and the analyses' reports are the engine's types, in `policy`.
 */
export const policyVersionStatuses = ["draft", "active", "superseded"] as const;
export const agentDisclosureSettings = ["inherit", "none", "rule", "conditions"] as const;
export const rolloutStages = ["none", "observe", "shadow", "require_approval", "enforce"] as const;
export const openActionsChoices = ["keep", "supersede_pending", "supersede_all"] as const;

const instant = z.string();

export const policyVersionSchema = z.strictObject({
  id: z.uuid(),
  policy_id: z.uuid(),
  number: z.number().int(),
  digest: z.string(),
  status: z.enum(policyVersionStatuses),
  note: z.string().nullable(),
  language_revision: z.union([z.literal(1), z.literal(2)]),
  origin: z.string(),
  source_version_id: z.uuid().nullable(),
  document_size: z.number().int(),
  created_at: instant,
  activated_at: instant.nullable(),
  superseded_at: instant.nullable(),
  /** Only where the route says so (the active, the shadow and the newest draft of GET policy). */
  document: z.record(z.string(), z.unknown()).optional(),
});
export type PolicyVersion = z.infer<typeof policyVersionSchema>;

const versionBrief = z
  .strictObject({
    id: z.uuid(),
    number: z.number().int(),
    digest: z.string(),
    language_revision: z.union([z.literal(1), z.literal(2)]),
  })
  .nullable();

export const policySchema = z.strictObject({
  id: z.uuid(),
  name: z.string(),
  agent_disclosure: z.enum(agentDisclosureSettings),
  active_version_id: z.uuid().nullable(),
  shadow_version_id: z.uuid().nullable(),
  active_version: versionBrief.optional(),
  shadow_version: versionBrief.optional(),
  emergency_stopped_at: instant.nullable(),
  examples_count: z.number().int(),
  created_at: instant,
});
export type PolicyRecord = z.infer<typeof policySchema>;

/** GET .../policy-status items: the rollout stage derived on every read. */
export const policyStatusSchema = z.strictObject({
  policy_id: z.uuid(),
  name: z.string(),
  stage: z.enum(rolloutStages),
  active_version: z.strictObject({ id: z.uuid(), number: z.number().int(), digest: z.string() }).nullable(),
  shadow_version: z.strictObject({ id: z.uuid(), number: z.number().int(), digest: z.string() }).nullable(),
  emergency_stopped: z.boolean(),
});
export type PolicyStatus = z.infer<typeof policyStatusSchema>;
export type RolloutStage = (typeof rolloutStages)[number];
export type OpenActionsChoice = (typeof openActionsChoices)[number];
export type AgentDisclosureSetting = (typeof agentDisclosureSettings)[number];
