import {
  followingOwnStep,
  ownBody,
  signObject,
  timestamp,
  type BodyOf,
  type Kid,
  type ObjectId,
  type SignedObject,
} from "@countersign/protocol/evidence";
import type { GatewayIdentity } from "../../identities/index.js";
import type { MappedAmount } from "../amount.js";

/** The exact call every step restates (docs/evidence.md "call"). */
export interface SignedCall {
  tool: string;
  action: string;
  arguments_digest: `sha256:${string}`;
  amount: { value: string; currency: string } | null;
}

export function signedCall(
  tool: string,
  action: string,
  argumentsDigest: `sha256:${string}`,
  amount: MappedAmount | null,
): SignedCall {
  return {
    tool,
    action,
    arguments_digest: argumentsDigest,
    amount: amount ? { value: amount.amount, currency: amount.currency } : null,
  };
}

export interface TaskInput {
  protectedActionId: string;
  execution: "gateway" | "caller";
  agent: { id: string; name: string };
  call: SignedCall;
  environment: "live" | "test";
  policy: { policy_id: string; version_id: string; version: number; digest: `sha256:${string}` };
  idempotencyKey: string | null;
  principalKid: Kid;
  delegationObjectId: ObjectId;
  now: Date;
}

/** The TASK: what the agent asked, under which policy, on whose behalf (signed by the Gateway). */
export function signTask(identity: GatewayIdentity, t: TaskInput): SignedObject<BodyOf<"TASK">> {
  return signObject(
    ownBody({
      type: "TASK",
      actor: identity.signer.kid,
      on_behalf_of: t.principalKid,
      thread: null,
      parent: null,
      delegations: [t.delegationObjectId],
      issued_at: timestamp(t.now),
      payload: {
        protected_action_id: t.protectedActionId,
        execution: t.execution,
        agent: t.agent,
        ...t.call,
        environment: t.environment,
        policy: t.policy,
        idempotency_key: t.idempotencyKey,
      },
    }) as BodyOf<"TASK">,
    identity.signer,
  );
}

export interface ProposalInput {
  call: SignedCall;
  policyEffect: "allow" | "require_approval" | "deny";
  ruleId: string | null;
  enforcement: "enforce" | "observe";
  approvalRequest: { id: string; expires_at: string; roles: string[]; approver_count: number } | null;
  expiresAt: Date;
  now: Date;
}

/** The PROPOSAL: the Gateway's decision on the TASK. */
export function signProposal(
  identity: GatewayIdentity,
  task: SignedObject<BodyOf<"TASK">>,
  p: ProposalInput,
): SignedObject<BodyOf<"PROPOSAL">> {
  return signObject(
    followingOwnStep(task, {
      type: "PROPOSAL",
      actor: identity.signer.kid,
      on_behalf_of: task.body.on_behalf_of,
      delegations: task.body.delegations,
      issued_at: timestamp(p.now),
      payload: {
        call: p.call,
        policy_effect: p.policyEffect,
        rule_id: p.ruleId,
        enforcement: p.enforcement,
        approval_request: p.approvalRequest,
        expires_at: timestamp(p.expiresAt),
      },
    }) as BodyOf<"PROPOSAL">,
    identity.signer,
  );
}
