import { z } from "zod";
import {
  activationAnswerSchema,
  decisionMapAnswerSchema,
  emergencyStopAnswerSchema,
  examplesAnswerSchema,
  policyActivateSchema,
  policyAnswerSchema,
  policyCreateSchema,
  policyCreatedSchema,
  policyDetailSchema,
  policyDiffAnswerSchema,
  policyDocumentInputSchema,
  policyEvidenceSchema,
  policyFromTemplateSchema,
  policyListSchema,
  policyPatchSchema,
  policyRollbackSchema,
  policyStatusAnswerSchema,
  policyTemplatesAnswerSchema,
  policyValidationSchema,
  policyVersionAnswerSchema,
  policyVersionCreateSchema,
  policyVersionCreatedSchema,
  rollbackAnswerSchema,
  savedSimulationAnswerSchema,
  savedSimulationListSchema,
  shadowReportAnswerSchema,
  shadowSetAnswerSchema,
  shadowSetSchema,
  simulationAnswerSchema,
  simulationRequestSchema,
  supersededAnswerSchema,
  versionImpactAnswerSchema,
} from "@countersign/protocol/wire";

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

// Answers: every one is the wire's (protocol/src/wire/policies.ts), which the clients validate with.
export const policyPage = policyListSchema;
export const templatesAnswer = policyTemplatesAnswerSchema;
export const policyAnswer = policyAnswerSchema;
export const policyDetail = policyDetailSchema;
export const validateAnswer = policyValidationSchema;
export const createdPolicy = policyCreatedSchema;
export const createdVersion = policyVersionCreatedSchema;
export const versionAnswer = policyVersionAnswerSchema;
export const activationAnswer = activationAnswerSchema;
export const versionImpactAnswer = versionImpactAnswerSchema;
export const rollbackAnswer = rollbackAnswerSchema;
export const emergencyAnswer = emergencyStopAnswerSchema;
export const supersededAnswer = supersededAnswerSchema;
export const shadowSetAnswer = shadowSetAnswerSchema;
export const policyStatusAnswer = policyStatusAnswerSchema;
export const examplesAnswer = examplesAnswerSchema;
export const simulationAnswer = simulationAnswerSchema;
export const savedSimulationAnswer = savedSimulationAnswerSchema;
export const savedSimulationPage = savedSimulationListSchema;
export const shadowReportAnswer = shadowReportAnswerSchema;
export const decisionMapAnswer = decisionMapAnswerSchema;
export const diffAnswer = policyDiffAnswerSchema;
export const evidenceAnswer = policyEvidenceSchema;
