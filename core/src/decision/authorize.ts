import { randomUUID } from "node:crypto";
import { digestOf, sha256Digest } from "@countersign/protocol/canonical";
import type { Kid, ObjectId } from "@countersign/protocol/evidence";
import { quotas, type Plan } from "../plans/index.js";
import type { NotificationHub, Pool } from "../store/index.js";
import { inSpan, inSpanSync } from "../telemetry/index.js";
import {
  expireLapsedApproval,
  readActionView,
  type ActionRecord,
  type ActionView,
} from "../actions/index.js";
import { admitGatewayCall, type Admission } from "./admission.js";
import { answerFor, unrecordedAnswer } from "./answers.js";
import { deniedForApprovers, resolveApprovers } from "./approvers.js";
import { loadDecisionContext, type DecisionContext } from "./context.js";
import { issueStoredReceipt, signedCall, signProposal, signTask } from "./evidence.js";
import {
  actionAllowed,
  actionAuthorized,
  actionDenied,
  approvalRequested,
  observeOverride,
  receiptCreated,
  type EventAction,
  type PolicyObject,
} from "./events.js";
import type { GatewayIdentity } from "./gateway-identity.js";
import { handOutApproved } from "./hand-out.js";
import { decideCall, type Evaluation, type Verdict } from "./pipeline.js";
import { PolicyCache } from "./policy-cache.js";
import { recordDecision, type DecisionWrite, type EventRecord, type ObjectRecord } from "./record.js";
import {
  verdictOutcome,
  verdictView,
  type RecordedIds,
  type RecordedVerdict,
  type VerdictOutcome,
} from "./verdict-view.js";
import type { AuthorizeAnswer, AuthorizeCall, AuthorizeService } from "./service.js";
import type { GatewayCode } from "@countersign/protocol/errors";

/** A call of either protection mode after the HTTP-level checks. */
export interface DecisionCall extends AuthorizeCall {
  execution: "caller" | "gateway";
}

/** What deciding a call came to: nothing recorded (with the refusal), or the recorded action. */
export type Decided =
  | { kind: "unrecorded"; code: GatewayCode; detail: string }
  | {
      kind: "recorded";
      view: ActionView;
      /** The action was recorded before this request (a repeat of its idempotency key). */
      resumed: boolean;
      /** This request raced another one with the same key and lost the write. */
      raced: boolean;
    };

const unrecorded = (code: GatewayCode, detail: string): Decided => ({ kind: "unrecorded", code, detail });
import { WaitLimits } from "./wait-limits.js";

/** The policy-language revisions this build evaluates (SPEC 3.4 language gate). */
export const LANGUAGE_REVISION = 2;

export interface DecisionServiceOptions {
  pool: Pool;
  identity: GatewayIdentity;
  defaultPlan: Plan;
  instanceId: string;
  /** LISTENs on ACTION_CHANNEL: wakes approval waits held by this process. */
  hub: NotificationHub;
  waits?: WaitLimits;
  policies?: PolicyCache;
  now?: () => Date;
  /** Told when the number of held approval waits changes (metrics). */
  onWaitsChanged?: (waiting: number) => void;
}

/**
 * POST /v1/authorize behind the HTTP checks (SPEC 4.1, 3.2): one context
 * read, the pure pipeline, signatures, one write; repeats and approvals
 * resume the recorded action instead of deciding again.
 */
export class DecisionService implements AuthorizeService {
  private readonly pool: Pool;
  private readonly waits: WaitLimits;
  private readonly policies: PolicyCache;
  private readonly now: () => Date;

  constructor(private readonly opts: DecisionServiceOptions) {
    this.pool = opts.pool;
    this.waits = opts.waits ?? new WaitLimits();
    this.policies = opts.policies ?? new PolicyCache();
    this.now = opts.now ?? (() => new Date());
  }

  admit(
    hashKey: Buffer,
    keyText: string,
    cost: number,
    intent: { tool: string; idempotencyKey: string | null } | null,
  ): Promise<Admission> {
    return admitGatewayCall(
      this.pool,
      hashKey,
      keyText,
      cost,
      intent && { ...intent, defaultPlan: this.opts.defaultPlan },
    );
  }

  /** POST /v1/authorize (decision-only): the decision, then the caller's answer (SPEC 4.1). */
  async authorize(call: AuthorizeCall): Promise<AuthorizeAnswer> {
    const decided = await this.decide({ ...call, execution: "caller" });
    if (decided.kind === "unrecorded") return unrecordedAnswer(decided.code, decided.detail);
    let view = decided.view;
    if (view.status === "approved") {
      const id = view.id;
      const handed = await inSpan("decision.hand_out", () =>
        handOutApproved(this.pool, this.opts.identity, id, this.now()),
      );
      if (!handed.ok) return unrecordedAnswer(handed.code, handed.detail);
      view = handed.view;
    }
    return answerFor(view, this.now());
  }

  /**
   * The decision for a call in either mode (SPEC 1.7): a new decision
   * recorded, or the action already recorded under the call's idempotency
   * key (after a wait for a person when asked). What happens next (hand-out
   * to the caller, execution by the Gateway) is the mode's.
   */
  async decide(call: DecisionCall): Promise<Decided> {
    const key = call.key;
    const argumentsDigest = sha256Digest(call.canonicalArguments);
    const fingerprint = digestOf({ tool: call.tool, arguments_digest: argumentsDigest });
    const load = () =>
      loadDecisionContext(this.pool, {
        organizationId: key.organizationId,
        agentId: key.agentId!,
        tool: call.tool,
        defaultPlan: this.opts.defaultPlan,
        idempotencyKey: call.idempotencyKey,
      });
    // Read with the key check when the Gateway knew the tool then (one round trip fewer).
    const ctx = call.context ?? (await inSpan("decision.context", load));
    if (!ctx || ctx.agent.status !== "active")
      return unrecorded("UNAUTHORIZED", "the key stopped working while the request ran");
    if (ctx.existingActionId) {
      const existing = ctx.existingActionId;
      return inSpan("decision.resume", () => this.resume(existing, fingerprint, call));
    }

    const now = this.now();
    const versionId = ctx.policy?.versionId;
    const policy = versionId
      ? await inSpan("decision.policy", () => this.policies.get(this.pool, versionId))
      : null;
    let verdict: Verdict = inSpanSync("decision.evaluate", (span) => {
      const v = decideCall(
        ctx,
        {
          tool: call.tool,
          arguments: call.arguments,
          environment: key.environment,
          execution: call.execution,
        },
        policy,
        now,
      );
      span.setAttribute("countersign.verdict", v.kind);
      return v;
    });
    if (verdict.kind === "refused") return unrecorded(verdict.code, verdict.detail);

    let approvers: string[] = [];
    if (verdict.kind === "approval") {
      const { roles, approverCount } = verdict;
      const resolved = await inSpan("decision.approvers", () =>
        resolveApprovers(this.pool, ctx.organization.id, roles, approverCount),
      );
      if (resolved.ok) approvers = resolved.kids;
      else verdict = deniedForApprovers(verdict, resolved);
    }

    const decided = verdict;
    const outcome = verdictOutcome(ctx, decided, call.execution, now);
    const write = inSpanSync("decision.sign", () =>
      this.decisionWrite(ctx, call, decided, outcome, { argumentsDigest, fingerprint, approvers, now }),
    );
    const stored = await inSpan("decision.record", (span) => {
      span.setAttribute("countersign.status", write.action.status);
      return recordDecision(this.pool, write);
    });
    if (stored === "plan_limit")
      return unrecorded(
        "PLAN_LIMIT_EXCEEDED",
        "the organization reached its plan's monthly protected actions",
      );
    if (stored === "idempotency_conflict") {
      // Another replica recorded this key first: this call is a repeat of its decision.
      const again = await load();
      return this.resume(again!.existingActionId!, fingerprint, call, true);
    }
    const view = verdictView(
      ctx,
      outcome,
      { execution: call.execution, requestFingerprint: fingerprint, argumentsDigest },
      idsOf(write),
    );
    if (view.status === "pending_approval" && call.waitSeconds > 0) {
      return {
        kind: "recorded",
        view: await inSpan("decision.wait", () => this.waitForPerson(view, call)),
        resumed: false,
        raced: false,
      };
    }
    return { kind: "recorded", view, resumed: false, raced: false };
  }

  /** A request repeating an idempotency key (SPEC 4.1 rules 1-3, 4.2 replays). */
  private async resume(
    actionId: string,
    fingerprint: string,
    call: DecisionCall,
    raced = false,
  ): Promise<Decided> {
    let view = await readActionView(this.pool, actionId);
    if (!view)
      return unrecorded("NOT_FOUND", "the action recorded under this idempotency key no longer exists");
    if (view.requestFingerprint !== fingerprint || view.execution !== call.execution) {
      return unrecorded(
        "IDEMPOTENCY_KEY_REUSED",
        "this idempotency key was used for a different request (tool or arguments); use a new key for a new operation",
      );
    }
    if (view.status === "pending_approval" && call.waitSeconds > 0) {
      const held = view;
      view = await inSpan("decision.wait", () => this.waitForPerson(held, call));
    }
    if (
      view.status === "pending_approval" &&
      view.approval &&
      view.approval.expiresAt.getTime() <= this.now().getTime()
    ) {
      await expireLapsedApproval(this.pool, view.id);
      view = (await readActionView(this.pool, view.id))!;
    }
    return { kind: "recorded", view, resumed: true, raced };
  }

  /**
   * Holds the call until a person decides or the wait ends (SPEC 4.1 rule 1),
   * woken by a notification from whichever process recorded the decision.
   * The organization slot is given back while waiting (8.2: calls waiting for
   * approval do not count).
   */
  private async waitForPerson(view: ActionView, call: DecisionCall): Promise<ActionView> {
    if (!this.waits.tryAcquire(call.key.id)) return view;
    this.opts.onWaitsChanged?.(this.waits.waiting);
    call.slot.release();
    const deadline = Date.now() + call.waitSeconds * 1000;
    try {
      let current = view;
      while (current.status === "pending_approval") {
        const remaining = deadline - Date.now();
        if (remaining <= 0 || call.signal?.aborted) break;
        if (current.approval && current.approval.expiresAt.getTime() <= this.now().getTime()) break;
        // Listen before reading, so a decision between the two is not missed.
        const stop = new AbortController();
        const onAbort = () => stop.abort();
        call.signal?.addEventListener("abort", onAbort, { once: true });
        const woken = this.opts.hub.wait(current.id, remaining, stop.signal);
        const fresh = (await readActionView(this.pool, current.id))!;
        if (fresh.status !== "pending_approval") {
          stop.abort();
          call.signal?.removeEventListener("abort", onAbort);
          return fresh;
        }
        await woken;
        call.signal?.removeEventListener("abort", onAbort);
        current = (await readActionView(this.pool, current.id))!;
      }
      return current;
    } finally {
      this.waits.release(call.key.id);
      this.opts.onWaitsChanged?.(this.waits.waiting);
    }
  }

  /** Everything a new decision writes, in the shape of the one-statement write (record.ts). */
  private decisionWrite(
    ctx: DecisionContext,
    call: DecisionCall,
    verdict: RecordedVerdict,
    outcome: VerdictOutcome,
    x: { argumentsDigest: `sha256:${string}`; fingerprint: string; approvers: string[]; now: Date },
  ): DecisionWrite {
    const { now } = x;
    const id = randomUUID();
    const tool = verdict.facts.tool;
    const amount = verdict.facts.amount;
    const evaluation: Evaluation | null = verdict.evaluation;
    const eventAction: EventAction = {
      protected_action_id: id,
      agent: { id: ctx.agent.id, name: ctx.agent.name },
      tool: tool.exposedName,
      action: tool.action,
      execution: call.execution,
      environment: call.key.environment,
    };
    const policyObject: PolicyObject | null = evaluation
      ? {
          policy_id: evaluation.policy.id,
          version: evaluation.policy.version,
          digest: evaluation.policy.digest,
          rule_id: evaluation.decision.rule_id,
          policy_effect: evaluation.decision.effect,
          enforcement: evaluation.enforcement,
          relaxed: evaluation.relaxed,
          observe_window: evaluation.observeWindow?.id ?? null,
        }
      : null;
    const delegation = verdict.facts.delegation;
    const monthlyLimit = quotas[ctx.organization.plan as Plan]?.protectedActionsPerMonth ?? null;
    const action: ActionRecord = {
      id,
      organizationId: ctx.organization.id,
      agentId: ctx.agent.id,
      apiKeyId: call.key.id,
      toolId: tool.id,
      toolName: tool.exposedName,
      action: tool.action,
      execution: call.execution,
      environment: call.key.environment,
      status: outcome.status,
      decisionCode: outcome.decisionCode,
      decisionDetail: outcome.decisionDetail,
      argumentsDigest: x.argumentsDigest,
      requestFingerprint: x.fingerprint,
      idempotencyKey: call.idempotencyKey,
      amount: amount?.amount ?? null,
      currency: amount?.currency ?? null,
      policy: evaluation
        ? {
            policyId: evaluation.policy.id,
            versionId: evaluation.policy.versionId,
            version: evaluation.policy.version,
            digest: evaluation.policy.digest,
            ruleId: evaluation.decision.rule_id,
            effect: evaluation.decision.effect,
            enforcement: evaluation.enforcement,
          }
        : null,
      agentExplanation: outcome.agentExplanation,
      explanation: evaluation?.explanation ?? null,
      delegationId: delegation?.id ?? null,
      taskObjectId: null,
      proposalObjectId: null,
      expiresAt: outcome.expiresAt,
      observeWindowId: evaluation?.observeWindow?.id ?? null,
      relaxed: outcome.relaxed,
      gatewayInstanceId: this.opts.instanceId,
      gatewayLanguageRevision: LANGUAGE_REVISION,
      bindingDigest: tool.binding == null ? null : digestOf(tool.binding),
    };
    const write: DecisionWrite = {
      action,
      objects: [],
      receipt: null,
      approval: null,
      events: [],
      monthlyLimit,
    };

    // Evidence needs the principal, a delegation and a policy version: a call
    // stopped before them is recorded without signed objects.
    const task =
      evaluation && delegation && verdict.facts.principalKid
        ? signTask(this.opts.identity, {
            protectedActionId: id,
            execution: call.execution,
            agent: { id: ctx.agent.id, name: ctx.agent.name },
            call: signedCall(tool.exposedName, tool.action, x.argumentsDigest, amount),
            environment: call.key.environment,
            policy: {
              policy_id: evaluation.policy.id,
              version_id: evaluation.policy.versionId,
              version: evaluation.policy.version,
              digest: evaluation.policy.digest as `sha256:${string}`,
            },
            idempotencyKey: call.idempotencyKey,
            principalKid: verdict.facts.principalKid as Kid,
            delegationObjectId: delegation.objectId as ObjectId,
            now,
          })
        : null;
    if (task) {
      write.objects.push(objectRecord(task));
      action.taskObjectId = task.id;
    }

    if (verdict.kind === "denied") {
      write.events.push(
        actionDenied(eventAction, { code: verdict.code, message: verdict.detail, policy: policyObject }),
      );
      return write;
    }

    const ev = verdict.evaluation;
    const d = verdict.facts.delegation;
    // How long the authorization or the approval request lasts is the outcome's (verdict-view.ts).
    const expiresAt = outcome.expiresAt!;
    if (verdict.kind === "approval") {
      const approvalId = randomUUID();
      const proposal = signProposal(this.opts.identity, task!, {
        call: signedCall(tool.exposedName, tool.action, x.argumentsDigest, amount),
        policyEffect: ev.decision.effect,
        ruleId: ev.decision.rule_id,
        enforcement: ev.enforcement,
        approvalRequest: {
          id: approvalId,
          expires_at: expiresAt.toISOString(),
          roles: verdict.roles,
          approver_count: verdict.approverCount,
        },
        expiresAt,
        now,
      });
      write.objects.push(objectRecord(proposal));
      action.proposalObjectId = proposal.id;
      write.approval = {
        id: approvalId,
        roles: verdict.roles,
        approverCount: verdict.approverCount,
        approverKids: x.approvers,
        expiresAt,
      };
      write.events.push(
        approvalRequested(eventAction, {
          approval_request_id: approvalId,
          expires_at: expiresAt.toISOString(),
          roles: verdict.roles,
          approver_count: verdict.approverCount,
          policy: policyObject!,
        }),
      );
      return write;
    }

    // Allowed: executable until expiresAt.
    const proposal = signProposal(this.opts.identity, task!, {
      call: signedCall(tool.exposedName, tool.action, x.argumentsDigest, amount),
      policyEffect: ev.decision.effect,
      ruleId: ev.decision.rule_id,
      enforcement: ev.enforcement,
      approvalRequest: null,
      expiresAt,
      now,
    });
    write.objects.push(objectRecord(proposal));
    if (call.execution === "gateway") {
      // Allowed, not executed yet: the receipt comes with the RESULT (core/src/execution).
      action.proposalObjectId = proposal.id;
      write.events.push(actionAllowed(eventAction, policyObject!));
      if (ev.relaxed) write.events.push(observeOverride(eventAction, policyObject!));
      return write;
    }
    const receipt = issueStoredReceipt(
      this.opts.identity,
      [task!, proposal],
      [d.object],
      ctx.principal!.documents,
      now,
    );
    const receiptId = randomUUID();
    action.proposalObjectId = proposal.id;
    write.receipt = {
      id: receiptId,
      kind: receipt.kind,
      receiptObjectId: receipt.receiptObjectId,
      threadId: receipt.threadId,
      headObjectId: receipt.headObjectId,
      outcome: receipt.outcome,
      issuerKid: this.opts.identity.signer.kid,
      bundle: receipt.file,
      bundleSha256: receipt.bundleSha256,
      verifiedAtIssuance: null,
    };
    const events: EventRecord[] = [
      actionAuthorized(eventAction, {
        expires_at: expiresAt.toISOString(),
        approval_request_id: null,
        receipt_id: receiptId,
        policy: policyObject,
      }),
      receiptCreated({
        receipt_id: receiptId,
        protected_action_id: id,
        receipt_object_id: receipt.receiptObjectId,
        thread_id: receipt.threadId,
        outcome: receipt.outcome,
        bundle_sha256: receipt.bundleSha256,
      }),
    ];
    if (ev.relaxed) events.push(observeOverride(eventAction, policyObject!));
    write.events.push(...events);
    return write;
  }
}

function objectRecord(o: { id: string; body: { type: string } }): ObjectRecord {
  return { objectId: o.id, type: o.body.type, object: o };
}

/** The ids a decision write created, for the view answered without reading it back. */
function idsOf(w: DecisionWrite): RecordedIds {
  return {
    id: w.action.id,
    taskObjectId: w.action.taskObjectId,
    proposalObjectId: w.action.proposalObjectId,
    approvalId: w.approval?.id ?? null,
    receipt: w.receipt
      ? { id: w.receipt.id, receiptObjectId: w.receipt.receiptObjectId, outcome: w.receipt.outcome }
      : null,
  };
}
