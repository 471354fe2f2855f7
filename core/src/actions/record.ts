import type { DecidedStatus } from "./status.js";

/** The protected action as a decision records it (SPEC 2.6); later changes are the transitions'. */
export interface ActionRecord {
  id: string;
  organizationId: string;
  agentId: string;
  apiKeyId: string;
  toolId: string;
  toolName: string;
  action: string;
  execution: "gateway" | "caller";
  environment: "live" | "test";
  status: DecidedStatus;
  decisionCode: string | null;
  decisionDetail: string | null;
  argumentsDigest: string;
  /** A held call's arguments as the RFC 8785 text `argumentsDigest` covers, for its approvers; else null. */
  arguments?: string | null;
  requestFingerprint: string;
  idempotencyKey: string | null;
  amount: string | null;
  currency: string | null;
  policy: {
    policyId: string;
    versionId: string;
    version: number;
    digest: string;
    ruleId: string | null;
    effect: "allow" | "require_approval" | "deny";
    enforcement: "enforce" | "observe";
  } | null;
  agentExplanation: unknown;
  explanation: unknown;
  delegationId: string | null;
  taskObjectId: string | null;
  proposalObjectId: string | null;
  expiresAt: Date | null;
  observeWindowId: string | null;
  relaxed: boolean;
  /** Which replica decided and the policy-language revision it supports (the language gate of SPEC 3.4). */
  gatewayInstanceId: string;
  gatewayLanguageRevision: number;
  bindingDigest: string | null;
}
