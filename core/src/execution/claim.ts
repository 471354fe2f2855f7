import { canonicalJson, digestOf } from "@countersign/protocol/canonical";
import { decide, type PolicyInput } from "@countersign/protocol/policy";
import type { PolicyCache } from "../decision/policy-cache.js";
import { identityLogOf, type GatewayIdentity } from "../identities/index.js";
import type { GatewayCode } from "@countersign/protocol/errors";
import {
  followingOwnStep,
  signObject,
  timestamp,
  type BodyOf,
  type IdentityDocument,
  type Kid,
  type SignedObject,
  type StepBody,
} from "@countersign/protocol/evidence";
import { deny, expire, markExecuting } from "../actions/index.js";
import { decryptMcpCredential } from "../mcp-servers/index.js";
import { inTransaction, type Pool } from "../store/index.js";
import type { Queryable } from "../store/queryable.js";
import { lockForClaim } from "./claim-store.js";
import { prepareEvidence, serverIdentityOf, type ServiceAwareCall } from "./service-aware.js";

/** How long after the claim an execution may still be running: the upstream call's 30 s and a margin. */
export const EXECUTION_DEADLINE_MS = 45_000;

/** What the Gateway needs to run a claimed call and sign its RESULT. */
export interface ExecutionPlan {
  actionId: string;
  organizationId: string;
  /** TASK → PROPOSAL (→ APPROVAL) → EXECUTION. */
  path: SignedObject<StepBody>[];
  delegation: SignedObject;
  /** Signers whose identity logs the receipt carries besides the Gateway: the principal, and the approving person. */
  signerKids: string[];
  /** Their identity logs, read with the claim's lock so that the RESULT's write is one statement (recovery reads them itself). */
  identityLogs?: IdentityDocument[];
  upstream: { url: string; authorization: string | null; tool: string };
  /** Set when the MCP server registered an identity: the evidence it is handed and what its attestation is checked against. */
  serviceAware?: ServiceAwareCall;
  meta: { agent: { id: string; name: string }; tool: string; action: string; environment: "live" | "test" };
}

export type Claim =
  | { ok: true; plan: ExecutionPlan }
  /** Not run. `state` is the action's status when it was not approved (someone else ran it, or it closed). */
  | { ok: false; code: GatewayCode | null; detail: string; state: string };

async function close(
  db: Queryable,
  id: string,
  status: "denied" | "expired",
  code: GatewayCode,
  detail: string,
): Promise<Claim> {
  // Under the claim's lock the action is approved: the change applies.
  await (status === "denied" ? deny : expire)(db, id, code, detail);
  return { ok: false, code, detail, state: status };
}

export interface ClaimInput {
  actionId: string;
  /** The call's arguments, for the re-check against a policy version activated since the decision (SPEC 3.3). */
  arguments: Record<string, unknown>;
  credentialKey: Buffer | undefined;
  policies: PolicyCache;
  now: Date;
}

/**
 * Claims an allowed or approved Gateway-enforced action for execution, once
 * (SPEC 1.2, 1.7): under the action's row lock and share locks on its
 * delegation and policy, re-check the window, the emergency stop, the
 * delegation, the binding, an observe window the call relied on and, for a
 * call no person approved, a policy version activated since (SPEC 3.3); then
 * sign the EXECUTION and mark the action executing with a deadline. Only one
 * request can move an action from approved to executing.
 */
export function claimExecution(pool: Pool, identity: GatewayIdentity, c: ClaimInput): Promise<Claim> {
  return inTransaction(pool, async (db) => {
    const a = await lockForClaim(db, c.actionId, c.now);
    if (!a) return { ok: false, code: "NOT_FOUND", detail: "no such action", state: "missing" };
    if (a.status !== "approved") return { ok: false, code: null, detail: "", state: a.status };
    const approved = a.approval_request_id !== null;

    // A rollback (supersede_all) or stop covers it, even before the closer reached it (SPEC 3.6).
    if (a.superseded) {
      return close(
        db,
        a.id,
        "expired",
        "SUPERSEDED",
        "a rollback or emergency stop of the policy closed this call before it ran; the identical call gets a new decision",
      );
    }
    if (a.emergency_stopped_at) {
      return close(
        db,
        a.id,
        "denied",
        "POLICY_CHANGED",
        "an emergency stop of the policy closed this call before it ran; the identical call gets a new decision",
      );
    }
    if (a.revoked_at || a.delegation_expired) {
      return close(
        db,
        a.id,
        "denied",
        "VERIFICATION_FAILED",
        "the delegation this call relied on was revoked or expired; it can no longer run",
      );
    }
    const bindingNow = a.binding == null ? null : digestOf(a.binding);
    const toolReady =
      a.tool_enabled &&
      a.binding != null &&
      a.authorized_binding != null &&
      canonicalJson(a.binding) === canonicalJson(a.authorized_binding);
    if (!toolReady || bindingNow !== a.binding_digest || a.server_status !== "active") {
      return close(
        db,
        a.id,
        "denied",
        "UPSTREAM_CHANGED",
        "the tool changed since this call was decided; call again for a new decision",
      );
    }
    if (a.relaxed && (a.window_ended_at || a.window_over)) {
      return close(
        db,
        a.id,
        "denied",
        "OBSERVE_ENDED",
        "the observe window that relaxed this call ended before it ran",
      );
    }
    if (!approved && a.active_version_id !== a.policy_version_id) {
      if (a.relaxed || !a.active_version_id) {
        return close(
          db,
          a.id,
          "denied",
          "POLICY_CHANGED",
          "the policy changed since this call was allowed; the identical call gets a new decision",
        );
      }
      const policy = await c.policies.get(db, a.active_version_id);
      const input: PolicyInput = {
        agent: { id: a.agent_id, name: a.agent_name },
        tool: a.tool_name,
        action: a.action,
        amount: a.amount === null ? null : String(a.amount),
        currency: a.currency,
        arguments: c.arguments,
        environment: a.environment,
      };
      if (!policy || decide(policy, input).decision.effect !== "allow") {
        return close(
          db,
          a.id,
          "denied",
          "POLICY_CHANGED",
          "the policy now in force does not allow this call; the identical call gets a new decision",
        );
      }
    }

    // The thread's stored objects and the identity logs the RESULT's receipt and a service-aware
    // server need came with the lock: no further round trip before the claim's write.
    const task = a.task_object as SignedObject<BodyOf<"TASK">>;
    const proposal = a.proposal_object as SignedObject<BodyOf<"PROPOSAL">>;
    const approval = (a.decision_object ?? undefined) as SignedObject<BodyOf<"APPROVAL">> | undefined;
    const logs = a.identity_logs as Record<string, unknown>;
    const logsOf = (kids: string[]) => kids.flatMap((k) => (k in logs ? identityLogOf(logs[k]) : []));
    const until = approval ? Date.parse(approval.body.payload.expires_at) : new Date(a.expires_at).getTime();
    if (until <= c.now.getTime()) {
      return approval
        ? close(
            db,
            a.id,
            "expired",
            "APPROVAL_EXPIRED",
            "the approval expired before the call ran; a new call gets a new decision",
          )
        : close(
            db,
            a.id,
            "expired",
            "TASK_EXPIRED",
            "the allowed call was not run before its decision expired; a new call gets a new decision",
          );
    }

    let authorization: string | null = null;
    if (a.credential_encrypted) {
      const read = c.credentialKey
        ? decryptMcpCredential(c.credentialKey, a.server_id, a.credential_encrypted)
        : ({ ok: false } as const);
      if (!read.ok)
        return {
          ok: false,
          code: "UPSTREAM_CREDENTIAL_INVALID",
          detail: "the MCP server's stored credential cannot be used; an owner or admin must set it again",
          state: "approved",
        };
      authorization = read.authorization;
    }

    // A service-aware server's identity is read before anything is signed or consumed.
    const server = a.server_kid ? serverIdentityOf(logsOf([a.server_kid])) : null;
    if (server && !server.ok)
      return { ok: false, code: server.code, detail: server.detail, state: "approved" };

    const execution = signExecution(identity, {
      task,
      proposal,
      approval,
      upstreamTool: a.upstream_name,
      serverKid: a.server_kid ?? null,
      now: c.now,
    });
    const path = [task, proposal, ...(approval ? [approval] : []), execution] as SignedObject<StepBody>[];
    const signerKids = [task.body.on_behalf_of!, ...(approval ? [approval.body.actor] : [])];
    const identityLogs = logsOf(signerKids);
    let serviceAware: ServiceAwareCall | undefined;
    if (server?.ok) {
      const prepared = prepareEvidence(identity, {
        serverKid: a.server_kid,
        serverIdentities: server.documents,
        path,
        delegation: a.delegation_object,
        signerIdentities: identityLogs,
      });
      if (!prepared.ok) return { ok: false, code: prepared.code, detail: prepared.detail, state: "approved" };
      serviceAware = prepared.call;
    }
    await markExecuting(db, {
      actionId: a.id,
      organizationId: a.organization_id,
      executionObjectId: execution.id,
      execution,
      deadline: new Date(c.now.getTime() + EXECUTION_DEADLINE_MS),
    });
    return {
      ok: true,
      plan: {
        actionId: a.id,
        organizationId: a.organization_id,
        path,
        delegation: a.delegation_object,
        signerKids,
        identityLogs,
        upstream: { url: a.url, authorization, tool: a.upstream_name },
        ...(serviceAware ? { serviceAware } : {}),
        meta: {
          agent: { id: a.agent_id, name: a.agent_name },
          tool: a.tool_name,
          action: a.action,
          environment: a.environment,
        },
      },
    };
  });
}

/** The Gateway's EXECUTION, following the person's APPROVAL when there is one, else the PROPOSAL. */
export function signExecution(
  identity: GatewayIdentity,
  e: {
    task: SignedObject<BodyOf<"TASK">>;
    proposal: SignedObject<BodyOf<"PROPOSAL">>;
    approval?: SignedObject<BodyOf<"APPROVAL">>;
    upstreamTool: string;
    serverKid: string | null;
    now: Date;
  },
): SignedObject<BodyOf<"EXECUTION">> {
  const parent = (e.approval ?? e.proposal) as SignedObject<StepBody>;
  return signObject(
    followingOwnStep(parent, {
      type: "EXECUTION",
      actor: identity.signer.kid,
      on_behalf_of: e.task.body.on_behalf_of,
      delegations: e.task.body.delegations,
      issued_at: timestamp(e.now),
      payload: {
        call: e.proposal.body.payload.call,
        upstream_tool: e.upstreamTool,
        server_kid: e.serverKid as Kid | null,
      },
    }) as BodyOf<"EXECUTION">,
    identity.signer,
  );
}
