import { z } from "zod";
import type { DecisionMap, ExamplesReport, PolicyDiff, PolicyExample } from "@countersign/protocol/policy";
import {
  activationAnswerSchema,
  pageSchema,
  policyActivateSchema,
  policyCreateSchema,
  policyDetailSchema,
  policyDocumentInputSchema,
  policyFromTemplateSchema,
  policyPatchSchema,
  policyRollbackSchema,
  policySchema,
  policyStatusItemSchema,
  policyVersionSchema,
  policyVersionCreateSchema,
  policyLintSchema,
  policyTemplatesAnswerSchema,
  policyValidationSchema,
  policyVersionCreatedSchema,
  policyVersionAnswerSchema,
  rollbackAnswerSchema,
  shadowReportAnswerSchema,
  shadowSetSchema,
  savedSimulationSchema,
  simulationAnswerSchema,
  simulationRequestSchema,
  versionImpactAnswerSchema,
} from "@countersign/protocol/wire";
import { objectOf } from "../http/shared.js";

/** Request shapes of the policy routes (SPEC 4.5): the bodies are the protocol's. */
export const policyParams = z.strictObject({ org_id: z.uuid(), policy_id: z.uuid() });
export const versionParams = z.strictObject({ org_id: z.uuid(), policy_id: z.uuid(), version_id: z.uuid() });

/** A document is validated by the policy engine, which reports every issue at once. */
export const documentInput = policyDocumentInputSchema;

export const createPolicyBody = policyCreateSchema;
export const fromTemplateBody = policyFromTemplateSchema;
export const versionBody = policyVersionCreateSchema;
export const patchBody = policyPatchSchema;
export const shadowBody = shadowSetSchema;

/** A body that may be left out entirely (POST without content): read as `{}`. */
export const optionalBody = <T extends z.ZodType>(schema: T) => z.preprocess((v) => v ?? {}, schema);

export const activateBody = optionalBody(policyActivateSchema);
export const rollbackBody = policyRollbackSchema;

export const simulationBody = simulationRequestSchema;

export const reportQuery = z.strictObject({
  window_days: z.coerce.number().int().min(1).max(90).default(7),
  scope: z.enum(["agents", "policy"]).default("agents"),
  environment: z.enum(["all", "live", "test"]).default("all"),
});

// Answers. The policy, version and status records are the protocol's (the operator reads them);
// reports computed by the policy engine are typed by it (`objectOf`).
export const policyPage = pageSchema(policySchema);
export const templatesAnswer = policyTemplatesAnswerSchema;
const lint = policyLintSchema;
export const policyAnswer = z.strictObject({ policy: policySchema });
export const policyDetail = policyDetailSchema;
export const validateAnswer = policyValidationSchema;
export const createdPolicy = z.strictObject({
  policy: policySchema,
  version: policyVersionSchema.nullable(),
  lint: lint.nullable(),
});
export const createdVersion = policyVersionCreatedSchema;
export const versionAnswer = policyVersionAnswerSchema;
export const activationAnswer = activationAnswerSchema;
export const versionImpactAnswer = versionImpactAnswerSchema;
export const rollbackAnswer = rollbackAnswerSchema;
export const emergencyAnswer = z.strictObject({
  emergency_stopped_at: z.string(),
  closed_actions: z.number().int(),
  ended_observe_windows: z.number().int(),
});
export const supersededAnswer = z.strictObject({
  closed_actions: z.number().int(),
  scope: z.enum(["supersede_pending", "supersede_all"]),
});
export const shadowSetAnswer = z.strictObject({ policy: policySchema, shadow_version: policyVersionSchema });
export const policyStatusAnswer = z.strictObject({ items: z.array(policyStatusItemSchema) });
export const examplesAnswer = z.strictObject({
  examples: z.array(objectOf<PolicyExample>("an example")),
  active_version_report: objectOf<ExamplesReport>("the examples report").nullable(),
});
export const simulationAnswer = simulationAnswerSchema;
export const savedSimulationAnswer = z.strictObject({ simulation: savedSimulationSchema });
export const savedSimulationPage = pageSchema(savedSimulationSchema);
export const shadowReportAnswer = shadowReportAnswerSchema;
export const decisionMapAnswer = z.strictObject({
  version_id: z.uuid(),
  decision_map: objectOf<DecisionMap>("a decision map"),
});
export const diffAnswer = z.strictObject({
  from_version_id: z.uuid(),
  to_version_id: z.uuid(),
  diff: objectOf<PolicyDiff>("a policy diff"),
});

/** The policy's evidence export (format in docs/policy-rollout.md): stored rows of the period, as read. */
const rows = z.array(z.record(z.string(), z.unknown()));
export const evidenceAnswer = z.strictObject({
  format: z.literal("countersign.policy-evidence@1"),
  organization_id: z.uuid(),
  policy: policySchema,
  period: z.strictObject({ from: z.string(), to: z.string() }),
  exported_at: z.string(),
  versions: z.array(policyVersionSchema),
  activations: rows,
  simulations: rows,
  audit: rows,
  digest: z.string(),
});
