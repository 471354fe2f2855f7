import { digestOf, sha256Digest } from "@countersign/protocol/canonical";
import type { GatewayCode } from "@countersign/protocol/errors";
import type { Plan } from "../plans/index.js";
import type { NotificationHub, Pool } from "../store/index.js";
import { inSpan, inSpanSync } from "../telemetry/index.js";
import { expireLapsedApproval, readActionView, type ActionView } from "../actions/index.js";
import { admitGatewayCall, type Admission } from "./admission.js";
import { answerFor, unrecordedAnswer } from "./answers.js";
import { deniedForApprovers, resolveApprovers } from "./approvers.js";
import type {
  AuthorizeAnswer,
  AuthorizeCall,
  AuthorizeService,
  DecisionCall,
  Decided,
} from "./authorize-call.js";
import { loadDecisionContext } from "./context.js";
import { ContextCache } from "./context-cache.js";
import type { GatewayIdentity } from "../identities/index.js";
import { handOutApproved } from "./hand-out.js";
import { openIdenticalHeld } from "./identical-held-store.js";
import { decideCall, type Verdict } from "./pipeline.js";
import { PolicyCache } from "./policy-cache.js";
import { decisionWrite, DecisionWriter, idsOf, recordDecision } from "./record/index.js";
import { verdictOutcome, verdictView } from "./verdict-view.js";
import { WaitLimits } from "./wait-limits.js";
import { StaleAdmission, WarmAdmissions } from "./warm-admission.js";

const unrecorded = (code: GatewayCode, detail: string): Decided<never> => ({
  kind: "unrecorded",
  code,
  detail,
});

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
  /** Told the size of every batch of decision writes (record/batcher.ts). */
  onWriteBatch?: (size: number) => void;
  /**
   * Decide calls from the keys and contexts this process read before, each
   * decision one write that re-checks them (warm-admission.ts). Default on.
   */
  warmAdmissions?: boolean;
  /** COUNTERSIGN_DETAILED_EXPLANATIONS (SPEC 2.9): false records the minimal explanation. Default true. */
  detailedExplanations?: boolean;
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
  /** The principal's log and the delegations' objects this process already holds (context-cache.ts). */
  private readonly held = new ContextCache();
  private readonly warm = new WarmAdmissions();
  /** Decision writes, batched when they queue (record/batcher.ts). */
  private readonly writer: DecisionWriter;

  constructor(private readonly opts: DecisionServiceOptions) {
    this.pool = opts.pool;
    this.writer = new DecisionWriter(opts.pool, { onBatch: opts.onWriteBatch });
    this.waits = opts.waits ?? new WaitLimits();
    this.policies = opts.policies ?? new PolicyCache();
    this.now = opts.now ?? (() => new Date());
  }

  admit(
    hashKey: Buffer,
    keyText: string,
    cost: number,
    intent: { tool: string; idempotencyKey: string | null } | null,
    fresh = false,
  ): Promise<Admission> {
    return admitGatewayCall(
      this.pool,
      hashKey,
      keyText,
      cost,
      intent && { ...intent, defaultPlan: this.opts.defaultPlan },
      this.held,
      { admissions: this.warm, use: !fresh && this.opts.warmAdmissions !== false },
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
  async decide<Plan = never>(call: DecisionCall<Plan>): Promise<Decided<Plan>> {
    const key = call.key;
    const argumentsDigest = sha256Digest(call.canonicalArguments);
    const fingerprint = digestOf({ tool: call.tool, arguments_digest: argumentsDigest });
    const load = () =>
      loadDecisionContext(
        this.pool,
        {
          organizationId: key.organizationId,
          agentId: key.agentId!,
          tool: call.tool,
          defaultPlan: this.opts.defaultPlan,
          idempotencyKey: call.idempotencyKey,
        },
        this.held,
      );
    // Read with the key check when the Gateway knew the tool then (one round trip fewer).
    const ctx = call.context ?? (await inSpan("decision.context", load));
    if (!ctx || ctx.agent.status !== "active")
      return unrecorded("UNAUTHORIZED", "the key stopped working while the request ran");
    if (call.idempotencyKey !== null) this.warm.sawIdempotencyKey(ctx.agent.id, call.idempotencyKey);
    if (ctx.existingActionId) {
      const existing = ctx.existingActionId;
      return inSpan("decision.resume", () => this.resume(existing, fingerprint, call, call.raced ?? false));
    }
    // A warm decision is answered only when its write held: anything else is decided again, fresh.
    const warm = ctx.warm;
    const stale = (why: "stale" | "repeat" | "raced" | "bucket_short" = "stale"): never => {
      if (why === "stale") this.warm.forget(ctx.organization.id);
      // A key out of tokens is refused by the admission read, cheaply, until it has some again.
      if (why === "bucket_short") this.warm.cool(warm!.apiKeyId);
      throw new StaleAdmission(why === "raced");
    };

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
        { detailedExplanations: this.opts.detailedExplanations },
      );
      span.setAttribute("countersign.verdict", v.kind);
      return v;
    });
    if (verdict.kind === "refused") return warm ? stale() : unrecorded(verdict.code, verdict.detail);
    if (verdict.kind === "approval" && call.idempotencyKey === null && call.resumeIdenticalHeld) {
      // Resuming answers without the write that checks a warm admission: decide it fresh.
      if (warm) stale("repeat");
      const open = await inSpan("decision.identical_held", () =>
        openIdenticalHeld(this.pool, ctx.agent.id, fingerprint, call.execution),
      );
      if (open) return inSpan("decision.resume", () => this.resume(open, fingerprint, call));
    }

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
      decisionWrite({
        identity: this.opts.identity,
        instanceId: this.opts.instanceId,
        ctx,
        call,
        verdict: decided,
        outcome,
        argumentsDigest,
        fingerprint,
        approvers,
        now,
      }),
    );
    const claimed = call.claimWithDecision?.({ ctx, write, now }) ?? null;
    let stored = await inSpan("decision.record", (span) => {
      span.setAttribute("countersign.status", claimed ? "executing" : write.action.status);
      const w = claimed ? claimed.write : write;
      return this.writer.record(warm ? { ...w, warm } : w);
    });
    if (warm && stored !== "recorded" && stored !== "plan_limit")
      stale(
        stored === "repeat" || stored === "bucket_short"
          ? stored
          : stored === "idempotency_conflict"
            ? "raced"
            : "stale",
      );
    // What the claim re-checks changed since the context was read: record the decision alone, and
    // let the claim of the recorded decision find the change and close the call with its code.
    const claimedWritten = claimed !== null && stored === "recorded";
    if (stored === "claim_refused") stored = await recordDecision(this.pool, write);
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
    return {
      kind: "recorded",
      view,
      resumed: false,
      raced: false,
      ...(claimedWritten && claimed ? { claimed: claimed.plan } : {}),
    };
  }

  /** A request repeating an idempotency key (SPEC 4.1 rules 1-3, 4.2 replays). */
  private async resume<Plan>(
    actionId: string,
    fingerprint: string,
    call: DecisionCall<Plan>,
    raced = false,
  ): Promise<Decided<Plan>> {
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
  private async waitForPerson<Plan>(view: ActionView, call: DecisionCall<Plan>): Promise<ActionView> {
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
}
