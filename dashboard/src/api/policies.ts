/**
 * The policy routes of the Cloud API (docs/policy-rollout.md), through the one client. Answers are
 * typed by the wire schemas and the engine's report types of `@countersign/protocol`.
 */
import type {
  DecisionMap,
  ExamplesReport,
  LintResult,
  PolicyDiff,
  PolicyExample,
} from "@countersign/protocol/policy";
import type {
  Activation,
  Impact,
  LanguageGate,
  PolicyActivate,
  PolicyDetail,
  PolicyDisclosure,
  OpenActionsChoice,
  Policy,
  PolicyStatusItem,
  PolicyTemplate,
  PolicyValidation,
  PolicyVersion,
  PolicyVersionAnswer,
  PolicyVersionCreated,
  Rollback,
  SavedSimulation,
  ShadowReport,
  Simulation,
  SimulationRequestInput,
  VersionImpact,
} from "@countersign/protocol/wire";
import { api, apiDownload } from "./client.js";

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
export type LintReport = LintResult;
/** A simulation as the dashboard asks for one: the api fills in what is left out. */
export type SimulationRequest = SimulationRequestInput;
export type Baseline = NonNullable<SimulationRequestInput["baseline"]>;

const base = (orgId: string) => `/orgs/${orgId}`;
const one = (orgId: string, policyId: string) => `/orgs/${orgId}/policies/${policyId}`;

export const policies = {
  list: (orgId: string) => api.get<{ items: Policy[] }>(`${base(orgId)}/policies?limit=100`),
  status: (orgId: string) => api.get<{ items: PolicyStatusItem[] }>(`${base(orgId)}/policy-status`),
  templates: (orgId: string) => api.get<{ items: PolicyTemplate[] }>(`${base(orgId)}/policy-templates`),
  get: (orgId: string, policyId: string) => api.get<PolicyDetail>(one(orgId, policyId)),
  create: (orgId: string, body: { name: string; document?: DocumentJson; note?: string }) =>
    api.post<{ policy: Policy; version: PolicyVersion | null }>(`${base(orgId)}/policies`, body),
  fromTemplate: (orgId: string, body: { name: string; template_id: string }) =>
    api.post<{ policy: Policy; version: PolicyVersion | null }>(
      `${base(orgId)}/policies/from-template`,
      body,
    ),
  validate: (orgId: string, document: DocumentJson, signal?: AbortSignal) =>
    api.post<PolicyValidation>(`${base(orgId)}/policies/validate`, { document }, { signal }),
  saveVersion: (orgId: string, policyId: string, body: { document: DocumentJson; note?: string }) =>
    api.post<PolicyVersionCreated>(`${one(orgId, policyId)}/versions`, body),
  requireApprovalCopy: (orgId: string, policyId: string, of: string, note?: string) =>
    api.post<{ version: PolicyVersion }>(`${one(orgId, policyId)}/versions`, {
      require_approval_copy_of: of,
      ...(note ? { note } : {}),
    }),
  diff: (orgId: string, policyId: string, from: string, to: string) =>
    api.get<{ diff: PolicyDiff }>(
      `${one(orgId, policyId)}/diff?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
    ),
  saveExamples: (orgId: string, policyId: string, examples: PolicyExample[]) =>
    api.put<{ examples: PolicyExample[]; active_version_report: ExamplesReport | null }>(
      `${one(orgId, policyId)}/examples`,
      { examples },
    ),
  simulate: (orgId: string, policyId: string, body: SimulationRequest) =>
    api.post<{ simulation: Simulation }>(`${one(orgId, policyId)}/simulate`, body),
  saveSimulation: (orgId: string, policyId: string, body: SimulationRequest) =>
    api.post<{ simulation: SavedSimulation }>(`${one(orgId, policyId)}/simulations`, body),
  simulations: (orgId: string, policyId: string) =>
    api.get<{ items: SavedSimulation[] }>(`${one(orgId, policyId)}/simulations?limit=20`),
  setShadow: (orgId: string, policyId: string, versionId: string, expected: string | null) =>
    api.put<{ policy: Policy }>(`${one(orgId, policyId)}/shadow`, {
      version_id: versionId,
      expected_shadow_version_id: expected,
    }),
  clearShadow: (orgId: string, policyId: string) =>
    api.delete<{ policy: Policy }>(`${one(orgId, policyId)}/shadow`),
  shadowReport: (orgId: string, policyId: string, windowDays: number) =>
    api.get<ShadowReport>(`${one(orgId, policyId)}/shadow/report?window_days=${windowDays}`),
  /** The impact the activation checks, computed by the same function (max_loosened comes from it). */
  impact: (orgId: string, policyId: string, versionId: string) =>
    api.get<VersionImpact>(`${one(orgId, policyId)}/versions/${versionId}/impact`),
  activate: (orgId: string, policyId: string, versionId: string, body: PolicyActivate) =>
    api.post<Activation>(`${one(orgId, policyId)}/versions/${versionId}/activate`, body),
  rollback: (
    orgId: string,
    policyId: string,
    body: {
      expected_active_version_id: string | null;
      to_version_id?: string;
      note?: string;
      open_actions: OpenActionsChoice;
    },
  ) => api.post<Rollback>(`${one(orgId, policyId)}/rollback`, body),
  emergencyStop: (orgId: string, policyId: string) =>
    api.post<{ emergency_stopped_at: string; closed_actions: number; ended_observe_windows: number }>(
      `${one(orgId, policyId)}/emergency`,
      {},
    ),
  version: (orgId: string, policyId: string, versionId: string) =>
    api.get<PolicyVersionAnswer>(`${one(orgId, policyId)}/versions/${versionId}`),
  decisionMap: (orgId: string, policyId: string, versionId: string) =>
    api.get<{ decision_map: DecisionMap }>(`${one(orgId, policyId)}/versions/${versionId}/decision-map`),
  evidence: (orgId: string, policyId: string, from: string, to: string) =>
    apiDownload(
      `${one(orgId, policyId)}/evidence?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
    ),
  setDisclosure: (orgId: string, policyId: string, agent_disclosure: PolicyDisclosure) =>
    api.patch<{ policy: Policy }>(one(orgId, policyId), { agent_disclosure }),
};
