/**
 * The policy routes of the Cloud API (docs/policy-rollout.md). Answers are validated by the wire
 * schemas of `@countersign/protocol`; the engine's reports they carry are typed by the engine.
 */
import type { PolicyExample } from "@countersign/protocol/policy";
import {
  activationAnswerSchema,
  decisionMapAnswerSchema,
  emergencyStopAnswerSchema,
  examplesAnswerSchema,
  policyAnswerSchema,
  policyCreatedSchema,
  policyDetailSchema,
  policyListSchema,
  policyStatusAnswerSchema,
  policyTemplatesAnswerSchema,
  policyValidationSchema,
  policyVersionAnswerSchema,
  policyVersionCreatedSchema,
  policyDiffAnswerSchema,
  rollbackAnswerSchema,
  savedSimulationAnswerSchema,
  savedSimulationListSchema,
  shadowReportAnswerSchema,
  shadowSetAnswerSchema,
  simulationAnswerSchema,
  versionImpactAnswerSchema,
  type Activation,
  type Impact,
  type LanguageGate,
  type OpenActionsChoice,
  type Policy,
  type PolicyActivate,
  type PolicyCreate,
  type PolicyDetail,
  type PolicyDisclosure,
  type PolicyRollback,
  type PolicyStatusItem,
  type PolicyVersion,
  type Rollback,
  type SavedSimulation,
  type ShadowReport,
  type Simulation,
  type SimulationRequestInput,
  type VersionImpact,
} from "@countersign/protocol/wire";
import { cloud } from "./cloud.js";
import { inOrg, seg } from "./paths.js";

export type {
  Activation,
  Impact,
  LanguageGate,
  Policy,
  PolicyDetail,
  PolicyVersion,
  PolicyStatusItem,
  OpenActionsChoice,
  PolicyDisclosure,
  Rollback,
  SavedSimulation,
  ShadowReport,
  Simulation,
  VersionImpact,
};
export type DocumentJson = Record<string, unknown>;
/** The policy engine's lint of a document, as the api answers it. */
export type { LintResult as LintReport } from "@countersign/protocol/policy";
/** A simulation as the dashboard asks for one: the api fills in what is left out. */
export type SimulationRequest = SimulationRequestInput;
export type Baseline = NonNullable<SimulationRequestInput["baseline"]>;

const one = (orgId: string, policyId: string) => inOrg(orgId, `/policies/${seg(policyId)}`);
const version = (orgId: string, policyId: string, versionId: string) =>
  `${one(orgId, policyId)}/versions/${seg(versionId)}`;

/** The query keys of the policy pages: invalidated after every change a page makes. */
export const policyKeys = {
  one: (policyId: string) => ["policy", policyId] as const,
  status: (orgId: string) => ["policy-status", orgId] as const,
  /** Every organization's status (a key bound or unbound changes who can approve). */
  everyStatus: ["policy-status"] as const,
};

export const policies = {
  list: (orgId: string) =>
    cloud.request("GET", inOrg(orgId, "/policies"), policyListSchema, { query: { limit: 100 } }),
  status: (orgId: string) => cloud.request("GET", inOrg(orgId, "/policy-status"), policyStatusAnswerSchema),
  templates: (orgId: string) =>
    cloud.request("GET", inOrg(orgId, "/policy-templates"), policyTemplatesAnswerSchema),
  get: (orgId: string, policyId: string) => cloud.request("GET", one(orgId, policyId), policyDetailSchema),
  create: (orgId: string, body: PolicyCreate) =>
    cloud.request("POST", inOrg(orgId, "/policies"), policyCreatedSchema, { body }),
  fromTemplate: (orgId: string, body: { name: string; template_id: string }) =>
    cloud.request("POST", inOrg(orgId, "/policies/from-template"), policyCreatedSchema, { body }),
  validate: (orgId: string, document: DocumentJson, signal?: AbortSignal) =>
    cloud.request("POST", inOrg(orgId, "/policies/validate"), policyValidationSchema, {
      body: { document },
      signal,
    }),
  saveVersion: (orgId: string, policyId: string, body: { document: DocumentJson; note?: string }) =>
    cloud.request("POST", `${one(orgId, policyId)}/versions`, policyVersionCreatedSchema, { body }),
  requireApprovalCopy: (orgId: string, policyId: string, of: string, note?: string) =>
    cloud.request("POST", `${one(orgId, policyId)}/versions`, policyVersionCreatedSchema, {
      body: { require_approval_copy_of: of, ...(note ? { note } : {}) },
    }),
  diff: (orgId: string, policyId: string, from: string, to: string) =>
    cloud.request("GET", `${one(orgId, policyId)}/diff`, policyDiffAnswerSchema, { query: { from, to } }),
  saveExamples: (orgId: string, policyId: string, examples: PolicyExample[]) =>
    cloud.request("PUT", `${one(orgId, policyId)}/examples`, examplesAnswerSchema, { body: { examples } }),
  simulate: (orgId: string, policyId: string, body: SimulationRequest) =>
    cloud.request("POST", `${one(orgId, policyId)}/simulate`, simulationAnswerSchema, { body }),
  saveSimulation: (orgId: string, policyId: string, body: SimulationRequest) =>
    cloud.request("POST", `${one(orgId, policyId)}/simulations`, savedSimulationAnswerSchema, { body }),
  simulations: (orgId: string, policyId: string) =>
    cloud.request("GET", `${one(orgId, policyId)}/simulations`, savedSimulationListSchema, {
      query: { limit: 20 },
    }),
  setShadow: (orgId: string, policyId: string, versionId: string, expected: string | null) =>
    cloud.request("PUT", `${one(orgId, policyId)}/shadow`, shadowSetAnswerSchema, {
      body: { version_id: versionId, expected_shadow_version_id: expected },
    }),
  clearShadow: (orgId: string, policyId: string) =>
    cloud.request("DELETE", `${one(orgId, policyId)}/shadow`, policyAnswerSchema),
  shadowReport: (orgId: string, policyId: string, windowDays: number) =>
    cloud.request("GET", `${one(orgId, policyId)}/shadow/report`, shadowReportAnswerSchema, {
      query: { window_days: windowDays },
    }),
  /** The impact the activation checks, computed by the same function (max_loosened comes from it). */
  impact: (orgId: string, policyId: string, versionId: string) =>
    cloud.request("GET", `${version(orgId, policyId, versionId)}/impact`, versionImpactAnswerSchema),
  activate: (orgId: string, policyId: string, versionId: string, body: PolicyActivate) =>
    cloud.request("POST", `${version(orgId, policyId, versionId)}/activate`, activationAnswerSchema, {
      body,
    }),
  rollback: (orgId: string, policyId: string, body: PolicyRollback) =>
    cloud.request("POST", `${one(orgId, policyId)}/rollback`, rollbackAnswerSchema, { body }),
  emergencyStop: (orgId: string, policyId: string) =>
    cloud.request("POST", `${one(orgId, policyId)}/emergency`, emergencyStopAnswerSchema, { body: {} }),
  version: (orgId: string, policyId: string, versionId: string) =>
    cloud.request("GET", version(orgId, policyId, versionId), policyVersionAnswerSchema),
  decisionMap: (orgId: string, policyId: string, versionId: string) =>
    cloud.request("GET", `${version(orgId, policyId, versionId)}/decision-map`, decisionMapAnswerSchema),
  /** The evidence export's exact bytes: its digest is over them (docs/policy-rollout.md). */
  evidence: (orgId: string, policyId: string, from: string, to: string) =>
    cloud.download(`${one(orgId, policyId)}/evidence?${new URLSearchParams({ from, to })}`),
  setDisclosure: (orgId: string, policyId: string, agent_disclosure: PolicyDisclosure) =>
    cloud.request("PATCH", one(orgId, policyId), policyAnswerSchema, { body: { agent_disclosure } }),
};
