import { z } from "zod";
import { pageSchema } from "./pages.js";
import type {
  DecisionMap,
  ExampleResult,
  ExamplesReport,
  LintResult,
  PolicyDiff,
  PolicyDocument,
  PolicyExample,
  SimulationReport,
} from "../policy/index.js";
import { managedBySchema } from "./managed-by.js";
import { nameSchema } from "./names.js";

export const policyDisclosures = ["inherit", "none", "rule", "conditions"] as const;
export const versionStatuses = ["draft", "active", "superseded"] as const;
export const versionOrigins = ["document", "template", "require_approval_copy", "rollback"] as const;
export const rolloutStages = ["none", "observe", "shadow", "require_approval", "enforce"] as const;
/** What a rollback or an emergency stop does with the actions still open under the policy. */
export const openActionsChoices = ["keep", "supersede_pending", "supersede_all"] as const;
export type RolloutStage = (typeof rolloutStages)[number];
export type OpenActionsChoice = (typeof openActionsChoices)[number];
export type PolicyDisclosure = (typeof policyDisclosures)[number];

/** A version named by a policy: the active or the shadow one. */
export const versionBriefSchema = z.strictObject({
  id: z.uuid(),
  number: z.number().int(),
  digest: z.string(),
  language_revision: z.number().int(),
});

/** A policy version (SPEC 2.4); `document` only where the route says. */
export const policyVersionSchema = z.strictObject({
  id: z.uuid(),
  policy_id: z.uuid(),
  number: z.number().int(),
  digest: z.string(),
  status: z.enum(versionStatuses),
  note: z.string().nullable(),
  language_revision: z.number().int(),
  origin: z.enum(versionOrigins),
  source_version_id: z.uuid().nullable(),
  document_size: z.number().int(),
  created_at: z.string(),
  activated_at: z.string().nullable(),
  superseded_at: z.string().nullable(),
  document: z.record(z.string(), z.unknown()).optional(),
});
export type PolicyVersion = z.infer<typeof policyVersionSchema>;

/** A policy (SPEC 2.4): the list and the read name its active and shadow versions too. */
export const policySchema = z.strictObject({
  id: z.uuid(),
  /** The Kubernetes resource that manages the record (api/src/kubernetes), null when people do. */
  managed_by: managedBySchema.nullable().optional(),
  name: z.string(),
  agent_disclosure: z.enum(policyDisclosures),
  active_version_id: z.uuid().nullable(),
  shadow_version_id: z.uuid().nullable(),
  active_version: versionBriefSchema.nullable().optional(),
  shadow_version: versionBriefSchema.nullable().optional(),
  emergency_stopped_at: z.string().nullable(),
  examples_count: z.number().int(),
  created_at: z.string(),
});
export type Policy = z.infer<typeof policySchema>;

const statusBrief = z.strictObject({ id: z.uuid(), number: z.number().int(), digest: z.string() });

/**
 * An approval requirement of a version (a require_approval rule, or the default; `rule_id` null)
 * that no one can meet now: its calls are denied NO_APPROVERS (or TOO_MANY_APPROVERS) instead of
 * being held. `members_with_role` counts enabled members holding one of `roles` with or without a
 * personal key: when it is at least `approver_count`, the fix is that they bind a personal key.
 */
export const unapprovableRuleSchema = z.strictObject({
  version_id: z.uuid(),
  rule_id: z.string().nullable(),
  roles: z.array(z.string()),
  approver_count: z.number().int(),
  code: z.enum(["NO_APPROVERS", "TOO_MANY_APPROVERS"]),
  members_with_role: z.number().int(),
});
export type UnapprovableRule = z.infer<typeof unapprovableRuleSchema>;

/**
 * GET .../policy-status items: every policy's rollout stage, its newest draft, and the approval
 * requirements of the version that decides (the active one, else the newest draft) no one can meet.
 */
export const policyStatusItemSchema = z.strictObject({
  policy_id: z.uuid(),
  name: z.string(),
  stage: z.enum(rolloutStages),
  active_version: statusBrief.nullable(),
  shadow_version: statusBrief.nullable(),
  draft_version: statusBrief.nullable().optional(),
  unapprovable: z.array(unapprovableRuleSchema).optional(),
  emergency_stopped: z.boolean(),
});
export type PolicyStatusItem = z.infer<typeof policyStatusItemSchema>;

/** POST .../rollback. */
export const rollbackAnswerSchema = z.strictObject({
  version: policyVersionSchema,
  restored_version: policyVersionSchema,
  previous_version_id: z.uuid().nullable(),
  open_actions: z.enum(openActionsChoices),
  closed_actions: z.number().int(),
  shadow_cleared: z.boolean(),
  /** A rollback to a version some Gateways cannot read yet goes ahead with a warning naming the language gate. */
  warnings: z.array(
    z.strictObject({
      code: z.literal("GATEWAYS_NOT_UPGRADED"),
      message: z.string(),
      language_gate: z.record(z.string(), z.unknown()),
    }),
  ),
});
export type Rollback = z.infer<typeof rollbackAnswerSchema>;

// Requests (SPEC 4.5). A document is validated by the policy engine, which reports every issue at
// once (422 POLICY_INVALID), so the body only says it is an object.

/** A note on a version or an activation: one paragraph of text. */
export const policyNoteSchema = z.string().min(1).max(2000);
export const policyDocumentInputSchema = z.record(z.string(), z.unknown());

/** POST .../policies: a policy, with its first version when a document is given. */
export const policyCreateSchema = z.strictObject({
  name: nameSchema,
  document: policyDocumentInputSchema.optional(),
  note: policyNoteSchema.optional(),
  agent_disclosure: z.enum(policyDisclosures).optional(),
});
export type PolicyCreate = z.infer<typeof policyCreateSchema>;

/** POST .../policies/from-template. */
export const policyFromTemplateSchema = z.strictObject({
  template_id: z.string().min(1).max(200),
  name: nameSchema,
  note: policyNoteSchema.optional(),
});

/** PATCH .../policies/<id>: the agent disclosure, the one setting changed without a version. */
export const policyPatchSchema = z.strictObject({ agent_disclosure: z.enum(policyDisclosures) });
export type PolicyPatch = z.infer<typeof policyPatchSchema>;

/** POST .../policies/<id>/versions: a document, or the require-approval copy of a version (SPEC 3.5). */
export const policyVersionCreateSchema = z.union([
  z.strictObject({ document: policyDocumentInputSchema, note: policyNoteSchema.optional() }),
  z.strictObject({ require_approval_copy_of: z.uuid(), note: policyNoteSchema.optional() }),
]);
export type PolicyVersionCreate = z.infer<typeof policyVersionCreateSchema>;

/** POST .../versions/<id>/activate (the body may be left out): what the person reviewed, checked again. */
export const policyActivateSchema = z.strictObject({
  expected_active_version_id: z.uuid().nullable().optional(),
  shadow_version_id: z.uuid().nullable().optional(),
  note: policyNoteSchema.optional(),
  acknowledge_failing_examples: z.boolean().optional(),
  max_loosened: z.number().int().min(0).optional(),
  simulation_id: z.uuid().optional(),
});
export type PolicyActivate = z.infer<typeof policyActivateSchema>;

/** POST .../policies/<id>/rollback (SPEC 3.6). */
export const policyRollbackSchema = z.strictObject({
  expected_active_version_id: z.uuid().nullable(),
  to_version_id: z.uuid().optional(),
  note: policyNoteSchema.optional(),
  open_actions: z.enum(openActionsChoices).default("keep"),
});
export type PolicyRollback = z.input<typeof policyRollbackSchema>;

/** PUT .../policies/<id>/shadow: refused SHADOW_CHANGED when the expected shadow is given and differs. */
export const shadowSetSchema = z.strictObject({
  version_id: z.uuid(),
  expected_shadow_version_id: z.uuid().nullable().optional(),
});
export type ShadowSet = z.infer<typeof shadowSetSchema>;

// Answers with what the policy engine computes: typed by the engine, the wire says they are objects.
export const engineObject = <T>(what: string) =>
  z.custom<T>((v) => typeof v === "object" && v !== null && !Array.isArray(v), `${what} (an object)`);

/** GET .../policies/<id>: the policy, its versions (with their documents) and its saved examples. */
export const policyDetailSchema = z.strictObject({
  policy: policySchema,
  versions: z.array(policyVersionSchema),
  examples: z.array(engineObject<PolicyExample>("an example")),
});
export type PolicyDetail = z.infer<typeof policyDetailSchema>;

/** One version with its whole document, whatever its status (GET .../versions/<version_id>). */
export const policyVersionAnswerSchema = z.strictObject({
  version: policyVersionSchema.required({ document: true }),
});
export type PolicyVersionAnswer = z.infer<typeof policyVersionAnswerSchema>;

/**
 * The impact preview of an activation (SPEC 3.4 step 4): recent calls replayed under the candidate
 * and the active version; not computed (`reason`) when over its time budget.
 */
export const impactSchema = z.strictObject({
  computed: z.boolean(),
  reason: z.enum(["time_budget_exceeded", "report_too_large"]).optional(),
  decisions: z.number().int().optional(),
  less_restricted: z.number().int().optional(),
  more_restricted: z.number().int().optional(),
  same: z.number().int().optional(),
  not_evaluable: z.number().int().optional(),
  argument_dependent: z.number().int().optional(),
});
export type Impact = z.infer<typeof impactSchema>;

/**
 * GET .../versions/<version_id>/impact: the impact activating the version now would have, computed
 * as the activation computes it (SPEC 3.4 step 4), against `active_version_id` (null: no version is
 * active, every call is denied). Sending `impact.less_restricted` as `max_loosened` activates unless
 * the impact grew meanwhile. `impact` is null when the version no longer validates.
 */
export const versionImpactAnswerSchema = z.strictObject({
  version_id: z.uuid(),
  active_version_id: z.uuid().nullable(),
  impact: impactSchema.nullable(),
});
export type VersionImpact = z.infer<typeof versionImpactAnswerSchema>;

export const languageGateReasons = [
  "no_recent_gateway",
  "outdated_gateway_running",
  "older_gateway_decided_recently",
] as const;
/** The language gate (SPEC 3.4 step 2): whether every Gateway is confirmed to read revision 2. */
export const languageGateSchema = z.union([
  z.strictObject({ open: z.literal(true), gateways: z.number().int() }),
  z.strictObject({
    open: z.literal(false),
    reason: z.enum(languageGateReasons),
    gateways: z.number().int(),
    outdated_instances: z.array(z.string()).optional(),
  }),
]);
export type LanguageGate = z.infer<typeof languageGateSchema>;

/** POST .../versions/<id>/activate: the version now active and what each gate found. */
export const activationAnswerSchema = z.strictObject({
  version: policyVersionSchema,
  previous_version_id: z.uuid().nullable(),
  shadow_cleared: z.boolean(),
  examples: engineObject<ExamplesReport>("the examples report").nullable(),
  impact: impactSchema.nullable(),
  language_gate: languageGateSchema.nullable(),
});
export type Activation = z.infer<typeof activationAnswerSchema>;

/** GET /orgs/<org_id>/policy-templates. */
export const policyTemplateSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  document: engineObject<PolicyDocument>("a policy document"),
});
export type PolicyTemplate = z.infer<typeof policyTemplateSchema>;
export const policyTemplatesAnswerSchema = z.strictObject({
  items: z.array(policyTemplateSchema).readonly(),
});

/** The policy engine's lint of a document: warnings (at most 100) and how many there were. */
export const policyLintSchema = engineObject<LintResult>("the lint result");

/** POST .../policies/validate: a valid document's revision, digest and lint (an invalid one is 422). */
export const policyValidationSchema = z.strictObject({
  valid: z.literal(true),
  language_revision: z.number().int(),
  digest: z.string(),
  lint: policyLintSchema,
});
export type PolicyValidation = z.infer<typeof policyValidationSchema>;

/** POST .../policies/<id>/versions: the draft version and its lint. */
export const policyVersionCreatedSchema = z.strictObject({
  version: policyVersionSchema,
  lint: policyLintSchema,
});
export type PolicyVersionCreated = z.infer<typeof policyVersionCreatedSchema>;

/** A call made up for a simulation, decided as the Gateway would decide it. */
const hypotheticalCallSchema = z.strictObject({
  tool: z.string().min(1).max(128),
  action: z.string().min(1).max(1024),
  amount: z
    .string()
    .regex(/^-?\d{1,40}(\.\d{1,40})?$/, "a decimal as text")
    .optional(),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .optional(),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

/** POST .../policies/<id>/simulate and .../simulations (SPEC 4.5): what to replay, against what. */
export const simulationRequestSchema = z.strictObject({
  candidate: z.union([
    z.strictObject({ version_id: z.uuid() }),
    z.strictObject({ document: policyDocumentInputSchema }),
  ]),
  baseline: z
    .discriminatedUnion("kind", [
      z.strictObject({ kind: z.literal("active") }),
      z.strictObject({ kind: z.literal("recorded") }),
      z.strictObject({ kind: z.literal("none") }),
      z.strictObject({ kind: z.literal("version"), version_id: z.uuid() }),
    ])
    .default({ kind: "active" }),
  window_days: z.number().int().min(1).max(90).default(7),
  scope: z.enum(["agents", "policy"]).default("agents"),
  environment: z.enum(["all", "live", "test"]).default("all"),
  examples: z.boolean().optional(),
  decision_map: z.boolean().optional(),
  calls: z.array(hypotheticalCallSchema).max(100).optional(),
});
/** The request as the api reads it, every default filled in. */
export type SimulationRequest = z.output<typeof simulationRequestSchema>;
/** The request as a client sends it: defaults may be left out. */
export type SimulationRequestInput = z.input<typeof simulationRequestSchema>;

/** GET .../policies/<id>/shadow/report: the shadow version replayed against the active one. */
export const shadowReportAnswerSchema = z.strictObject({
  shadow_version_id: z.uuid(),
  active_version_id: z.uuid().nullable(),
  window_days: z.number().int(),
  report: engineObject<SimulationReport>("the shadow report"),
});
export type ShadowReport = z.infer<typeof shadowReportAnswerSchema>;

/** What "baseline" meant when a simulation ran: `version_id` pins the active version of that moment. */
export const storedBaselineSchema = z.strictObject({
  kind: z.enum(["active", "recorded", "none", "version"]),
  version_id: z.uuid().nullable(),
});
export type StoredBaseline = z.infer<typeof storedBaselineSchema>;

const simulatedDecisionSchema = z.strictObject({ effect: z.string(), rule_id: z.string().nullable() });

/** A hypothetical call of the request, decided by the candidate and by the baseline (null: none). */
export const simulatedCallSchema = z.strictObject({
  index: z.number().int(),
  tool: z.string(),
  action: z.string(),
  candidate: simulatedDecisionSchema,
  baseline: simulatedDecisionSchema.nullable(),
});
export type SimulatedCall = z.infer<typeof simulatedCallSchema>;

/** A simulation's result (POST .../simulate): the engine's report and, on request, examples and the decision map. */
export const simulationSchema = z.strictObject({
  report: engineObject<SimulationReport>("the simulation report"),
  baseline: storedBaselineSchema,
  calls: z.array(simulatedCallSchema),
  examples: engineObject<ExamplesReport>("the examples report").optional(),
  decision_map: engineObject<DecisionMap>("a decision map").optional(),
});
export type Simulation = z.infer<typeof simulationSchema>;
export const simulationAnswerSchema = z.strictObject({ simulation: simulationSchema });

/** The report a saved simulation keeps: the engine's report with the hypothetical calls and examples. */
export type SavedSimulationReport = SimulationReport & {
  calls: SimulatedCall[];
  examples: ExamplesReport | null;
};

/** A saved simulation (POST, GET .../simulations): its report only when one is read. */
export const savedSimulationSchema = z.strictObject({
  id: z.uuid(),
  policy_id: z.uuid(),
  candidate_version_id: z.uuid(),
  baseline: storedBaselineSchema,
  parameters: z.strictObject({
    window_days: z.number().int(),
    scope: z.enum(["agents", "policy"]),
    environment: z.enum(["all", "live", "test"]),
  }),
  created_by: z.strictObject({ type: z.string(), id: z.string().nullable() }),
  created_at: z.string(),
  expires_at: z.string(),
  report: engineObject<SavedSimulationReport>("the simulation report").optional(),
});
export type SavedSimulation = z.infer<typeof savedSimulationSchema>;

// The answers of the policy routes that wrap the shapes above (SPEC 4.5).
/** PATCH .../policies/<id>, DELETE .../shadow. */
export const policyAnswerSchema = z.strictObject({ policy: policySchema });
/** POST .../policies and .../policies/from-template: the policy, its first version and that version's lint. */
export const policyCreatedSchema = z.strictObject({
  policy: policySchema,
  version: policyVersionSchema.nullable(),
  lint: policyLintSchema.nullable(),
});
/** POST .../emergency. */
export const emergencyStopAnswerSchema = z.strictObject({
  emergency_stopped_at: z.string(),
  closed_actions: z.number().int(),
  ended_observe_windows: z.number().int(),
});
/** POST .../supersede-open-actions. */
export const supersededAnswerSchema = z.strictObject({
  closed_actions: z.number().int(),
  scope: z.enum(["supersede_pending", "supersede_all"]),
});
/** PUT .../shadow. */
export const shadowSetAnswerSchema = z.strictObject({
  policy: policySchema,
  shadow_version: policyVersionSchema,
});
/** GET .../policy-status. */
export const policyStatusAnswerSchema = z.strictObject({ items: z.array(policyStatusItemSchema) });
/** PUT .../examples: the saved examples and how the active version does on them. */
export const examplesAnswerSchema = z.strictObject({
  examples: z.array(engineObject<PolicyExample>("an example")),
  active_version_report: engineObject<ExamplesReport>("the examples report").nullable(),
});
/** POST and GET of one saved simulation. */
export const savedSimulationAnswerSchema = z.strictObject({ simulation: savedSimulationSchema });
/** GET .../versions/<version_id>/decision-map. */
export const decisionMapAnswerSchema = z.strictObject({
  version_id: z.uuid(),
  decision_map: engineObject<DecisionMap>("a decision map"),
});
/** GET .../diff?from=&to=. */
export const policyDiffAnswerSchema = z.strictObject({
  from_version_id: z.uuid(),
  to_version_id: z.uuid(),
  diff: engineObject<PolicyDiff>("a policy diff"),
});
/** GET .../evidence: the policy's evidence export (format in docs/policy-rollout.md), stored rows as read. */
const evidenceRows = z.array(z.record(z.string(), z.unknown()));
export const policyEvidenceSchema = z.strictObject({
  format: z.literal("countersign.policy-evidence@1"),
  organization_id: z.uuid(),
  policy: policySchema,
  period: z.strictObject({ from: z.string(), to: z.string() }),
  exported_at: z.string(),
  versions: z.array(policyVersionSchema),
  activations: evidenceRows,
  simulations: evidenceRows,
  audit: evidenceRows,
  digest: z.string(),
});

/** GET .../policies: a page of policies. */
export const policyListSchema = pageSchema(policySchema);
/** GET .../policies/<id>/simulations: a page of saved simulations. */
export const savedSimulationListSchema = pageSchema(savedSimulationSchema);

/** `details` of 409 EXAMPLES_FAILING: how many saved examples fail, and each failing result. */
export const examplesFailingDetailsSchema = z.looseObject({
  failed: z.number().int(),
  failing: z.array(engineObject<ExampleResult>("a failing example")),
});
