import type { BodyOf, SignedObject, StepBody } from "@countersign/protocol/evidence";
import type { ClaimWithDecisionFn as DecisionClaimHook } from "../decision/authorize-call.js";
import type { GatewayIdentity } from "../identities/index.js";
import { decryptMcpCredential } from "../mcp-servers/index.js";
import { EXECUTION_DEADLINE_MS, signExecution, type ExecutionPlan } from "./claim.js";

/** The decision's claim hook (decision/authorize-call.ts) with this executor's plan. */
export type ClaimWithDecisionFn = DecisionClaimHook<ExecutionPlan>;

/**
 * The claim of an allowed tools/call made in its decision's write: the
 * EXECUTION signed beside the TASK and PROPOSAL, the action recorded
 * executing, and one commit fewer before the upstream is called. The write
 * re-checks, under the same share locks as the claim of a recorded decision,
 * everything that claim re-checks and that could have changed since the
 * context was read (decision/record/store.ts); the rest the decision has just checked
 * itself. Calls that need more than the context holds are claimed on their
 * own, as before: a service-aware server (its identity is read with the
 * claim), a call relaxed by an observe window, a credential that cannot be
 * read (the claim answers UPSTREAM_CREDENTIAL_INVALID).
 */
export function claimWithDecision(
  identity: GatewayIdentity,
  credentialKey: Buffer | undefined,
): ClaimWithDecisionFn {
  return ({ ctx, write, now }) => {
    const a = write.action;
    const tool = ctx.tool;
    const server = tool?.server;
    if (!tool || !server || server.kid !== null || a.relaxed || !a.policy || !a.delegationId) return null;
    if (a.status !== "approved" || write.approval || !tool.bindingAuthorized) return null;
    const delegation = ctx.delegations.find((d) => d.id === a.delegationId);
    const task = write.objects.find((o) => o.type === "TASK")?.object as
      SignedObject<BodyOf<"TASK">> | undefined;
    const proposal = write.objects.find((o) => o.type === "PROPOSAL")?.object as
      SignedObject<BodyOf<"PROPOSAL">> | undefined;
    if (!delegation || !task || !proposal || !ctx.principal) return null;
    let authorization: string | null = null;
    if (server.credentialEncrypted) {
      if (!credentialKey) return null;
      const read = decryptMcpCredential(credentialKey, server.id, server.credentialEncrypted);
      if (!read.ok) return null;
      authorization = read.authorization;
    }
    const execution = signExecution(identity, {
      task,
      proposal,
      upstreamTool: tool.upstreamName,
      serverKid: null,
      now,
    });
    const signerKids = [task.body.on_behalf_of!];
    return {
      write: {
        ...write,
        objects: [...write.objects, { objectId: execution.id, type: "EXECUTION", object: execution }],
        claim: {
          executionObjectId: execution.id,
          deadline: new Date(now.getTime() + EXECUTION_DEADLINE_MS),
          delegationId: a.delegationId,
          policyId: a.policy.policyId,
          policyVersionId: a.policy.versionId,
          policyVersion: a.policy.version,
          toolId: a.toolId,
          binding: tool.binding,
        },
      },
      plan: {
        actionId: a.id,
        organizationId: a.organizationId,
        path: [task, proposal, execution] as SignedObject<StepBody>[],
        delegation: delegation.object,
        signerKids,
        identityLogs: ctx.principal.kid === signerKids[0] ? ctx.principal.documents : undefined,
        upstream: { url: server.url, authorization, tool: tool.upstreamName },
        meta: {
          agent: { id: a.agentId, name: ctx.agent.name },
          tool: a.toolName,
          action: a.action,
          environment: a.environment,
        },
      },
    };
  };
}
