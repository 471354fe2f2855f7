import type { ActionView } from "@countersign/core/actions";
import { checkArguments, type Decided } from "@countersign/core/decision";
import {
  acceptAttested,
  claimExecution,
  evidenceMeta,
  finishExecution,
  type ExecutionOutcome,
  type ExecutionPlan,
  type Finish,
} from "@countersign/core/execution";
import { isDatabaseUnavailable } from "@countersign/core/store";
import type { AuthenticatedKey } from "@countersign/core/keys";
import { inSpan } from "@countersign/core/telemetry";
import { callUpstreamTool } from "@countersign/core/upstream";
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import { refusalContentSchema } from "@countersign/protocol/wire";
import type { GatewayContext, McpContext } from "../context.js";
import { contextFor, type AdmittedContext } from "./call-intent.js";
import { callMeta } from "./meta.js";
import { progressRelay, type Notify } from "./progress.js";
import { completedResult, recordedRefusalResult, refusalResult } from "./results.js";

export interface ToolCall {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/**
 * tools/call (SPEC 4.2, 1.2): the decision of the shared pipeline, then for
 * an allowed or approved call the execution, exactly once; every other
 * outcome is a refusal result. A repeat of the same idempotency key answers
 * what the action came to, without calling the upstream again. With
 * `notify`, the upstream's progress reaches a caller that asked for it.
 */
export async function callTool(
  ctx: GatewayContext & { mcp: McpContext },
  key: AuthenticatedKey,
  call: ToolCall,
  signal: AbortSignal,
  admitted?: AdmittedContext,
  notify?: Notify,
): Promise<CallToolResult> {
  const meta = callMeta(call._meta);
  if (!meta.ok) return refusalResult("INVALID_META", meta.detail);
  const args = call.arguments ?? {};
  const checked = checkArguments(args);
  if (!checked.ok) return refusalResult("INVALID_ARGUMENTS", checked.message ?? "invalid arguments");

  const slot = await inSpan("gateway.queue", () => ctx.queue.acquire(key.organizationId));
  ctx.metrics.queueDepth.set(ctx.queue.depth);
  if (!slot)
    return refusalResult(
      "GATEWAY_BUSY",
      "this organization has more calls in progress than the Gateway takes at once; retry the same call with the same key",
    );
  const started = process.hrtime.bigint();
  try {
    const decided = await ctx.mcp.decisions.decide({
      key,
      tool: call.name,
      arguments: args,
      canonicalArguments: checked.canonical!,
      idempotencyKey: meta.idempotencyKey,
      waitSeconds: meta.waitSeconds,
      slot,
      signal,
      execution: "gateway",
      claimWithDecision: ctx.mcp.claimWithDecision,
      resumeIdenticalHeld: true,
      context: contextFor(admitted, call.name, meta.idempotencyKey),
      raced: admitted?.raced,
    });
    const result = await answer(ctx, decided, args, slot, progressRelay(call._meta, notify));
    // A refusal's structuredContent.service, by the wire's schema; an upstream's own result has none of ours.
    const service = result.isError
      ? refusalContentSchema.safeParse(result.structuredContent).data?.service
      : undefined;
    ctx.metrics.decisions.inc({
      mode: "gateway",
      status: service?.status ?? "succeeded",
      code: service?.code ?? "",
    });
    if (!meta.waitSeconds)
      ctx.metrics.decisionSeconds.observe(
        { mode: "gateway" },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    return result;
  } finally {
    slot.release();
    ctx.metrics.queueDepth.set(ctx.queue.depth);
  }
}

async function answer(
  ctx: GatewayContext & { mcp: McpContext },
  decided: Decided<ExecutionPlan>,
  args: Record<string, unknown>,
  slot: { release(): void },
  onProgress: ((p: Progress) => void) | undefined,
): Promise<CallToolResult> {
  if (decided.kind === "unrecorded") return refusalResult(decided.code, decided.detail);
  if (decided.claimed) return run(ctx, decided.view, decided.claimed, args, slot, onProgress);
  const view = decided.view;
  switch (view.status) {
    case "approved":
      return execute(ctx, view, args, slot, onProgress);
    case "executing":
      return refusalResult(
        decided.raced ? "DUPLICATE_IN_FLIGHT" : "EXECUTION_IN_PROGRESS",
        "the same call is running; wait and repeat it with the same idempotency key",
        {
          protected_action_id: view.id,
        },
      );
    case "succeeded":
    case "failed":
      if (decided.raced) return replay(view);
      return completedResult({
        view,
        status: view.status,
        errorCode: view.errorCode,
        result: view.result,
        receipt: receiptOf(view),
      });
    default:
      return recordedRefusalResult(view);
  }
}

function receiptOf(view: ActionView) {
  return view.receipt
    ? {
        id: view.receipt.id,
        receiptObjectId: view.receipt.receiptObjectId,
        resultObjectId: view.resultObjectId ?? "",
      }
    : null;
}

function replay(view: ActionView): CallToolResult {
  return refusalResult(
    "REPLAY",
    "another request already ran this call; repeat it with the same idempotency key to get the stored outcome",
    { protected_action_id: view.id },
  );
}

/** Claim, call the upstream, record the RESULT: the only path that reaches an upstream. */
async function execute(
  ctx: GatewayContext & { mcp: McpContext },
  view: ActionView,
  args: Record<string, unknown>,
  slot: { release(): void },
  onProgress: ((p: Progress) => void) | undefined,
): Promise<CallToolResult> {
  const m = ctx.mcp;
  const claim = await inSpan("execution.claim", () =>
    claimExecution(ctx.pool, m.identity, {
      actionId: view.id,
      arguments: args,
      credentialKey: m.credentialKey,
      policies: m.policies,
      now: new Date(),
    }),
  );
  if (!claim.ok) {
    if (claim.code) return refusalResult(claim.code, claim.detail, { protected_action_id: view.id });
    // Another request moved the action first.
    if (claim.state === "executing")
      return refusalResult(
        "DUPLICATE_IN_FLIGHT",
        "the same call is running; wait and repeat it with the same idempotency key",
        { protected_action_id: view.id },
      );
    return replay(view);
  }
  return run(ctx, view, claim.plan, args, slot, onProgress);
}

/** Call the upstream for a claimed action and record its RESULT. */
async function run(
  ctx: GatewayContext & { mcp: McpContext },
  view: ActionView,
  plan: ExecutionPlan,
  args: Record<string, unknown>,
  slot: { release(): void },
  onProgress: ((p: Progress) => void) | undefined,
): Promise<CallToolResult> {
  const m = ctx.mcp;
  // SPEC 8.2: a call waiting for its upstream does not hold the organization's slot.
  slot.release();
  const started = process.hrtime.bigint();
  const outcome = await inSpan("upstream.call", (span) => {
    span.setAttribute("countersign.upstream_tool", plan.upstream.tool);
    return callUpstreamTool({
      url: plan.upstream.url,
      authorization: plan.upstream.authorization,
      tool: plan.upstream.tool,
      arguments: args,
      meta: plan.serviceAware ? evidenceMeta(plan.serviceAware) : undefined,
      rules: m.rules,
      ca: m.ca,
      timeoutMs: m.upstreamTimeoutMs,
      sessions: m.sessions,
      eras: m.eras,
      onProgress,
      owner: { organizationId: plan.organizationId, agentId: plan.meta.agent.id },
    });
  });
  const code = outcome.kind === "failure" ? outcome.code : outcome.isError ? "UPSTREAM_TOOL_ERROR" : "ok";
  // A service-aware upstream's answer counts only with its attestation (or as its refusal).
  const accepted: ExecutionOutcome =
    plan.serviceAware && outcome.kind === "result"
      ? acceptAttested(
          plan.serviceAware,
          plan.path[plan.path.length - 1]!.id,
          outcome.result,
          outcome.isError,
        )
      : outcome;
  ctx.metrics.upstreamSeconds.observe(Number(process.hrtime.bigint() - started) / 1e9);
  ctx.metrics.upstreamCalls.inc({ outcome: code });
  let finished: Finish;
  try {
    finished = await inSpan("execution.finish", () =>
      finishExecution(ctx.pool, m.identity, plan, accepted, new Date(), m.results),
    );
  } catch (err) {
    // A database that is down keeps its own answer (DATABASE_UNAVAILABLE). Anything else failed
    // after the upstream was called: SPEC 7.3 GATEWAY_ERROR, a result that could not be stored; the
    // action stays executing and recovery closes it as failed.
    if (isDatabaseUnavailable(err)) throw err;
    m.log?.error(
      { err, protected_action_id: view.id },
      "the result of an executed call could not be recorded",
    );
    return refusalResult(
      "GATEWAY_ERROR",
      "the upstream was called but the Gateway could not record its result; it may have acted. Recovery closes the call as failed",
      { protected_action_id: view.id },
    );
  }
  if (!finished.recorded) {
    return refusalResult(
      "RESULT_NOT_RECORDED",
      "the call ran but its outcome could not be recorded; recovery marks it failed",
      { protected_action_id: view.id },
    );
  }
  const f = finished.finished;
  return completedResult({
    view,
    status: f.status,
    errorCode: f.errorCode,
    result: f.result,
    receipt: f.receipt,
  });
}
