import type { AuthenticatedKey } from "../keys/authenticate.js";
import type { Admission } from "./admission.js";
import type { DecisionContext } from "./context.js";
import type { ActionView } from "../actions/index.js";
import type { GatewayCode } from "@countersign/protocol/errors";
import type { DecisionWrite } from "./record/index.js";

/** One POST /v1/authorize call after the HTTP-level checks passed. */
export interface AuthorizeCall {
  key: AuthenticatedKey;
  tool: string;
  arguments: Record<string, unknown>;
  /** RFC 8785 text of the arguments (argument-limits.ts), what `arguments_digest` covers. */
  canonicalArguments: string;
  idempotencyKey: string | null;
  /** Already capped at 60 (SPEC 8.4). */
  waitSeconds: number;
  /** The organization slot; released while the call waits for a person. */
  slot: { release: () => void };
  signal?: AbortSignal;
  /** The decision context read with the key check (admission.ts); read again when absent. */
  context?: DecisionContext;
  /**
   * This is the fresh run of a request whose warm decision lost its write to another request
   * with the same idempotency key (warm-admission.ts StaleAdmission): a repeat found now raced.
   */
  raced?: boolean;
}

export interface AuthorizeAnswer {
  http: 200 | 400 | 401 | 503;
  body: Record<string, unknown>;
}

export interface AuthorizeService {
  /**
   * The key check and rate limit, with the context of the call's tool when it is known (one round
   * trip, or none when admitted warm; `fresh`: read, after a StaleAdmission).
   */
  admit(
    hashKey: Buffer,
    keyText: string,
    cost: number,
    intent: { tool: string; idempotencyKey: string | null } | null,
    fresh?: boolean,
  ): Promise<Admission>;
  authorize(call: AuthorizeCall): Promise<AuthorizeAnswer>;
}

/** A new decision's write with a claim for execution in it, and the executor's plan for running the call. */
export interface ClaimedDecision<Plan> {
  write: DecisionWrite;
  plan: Plan;
}

/**
 * Offered a tools/call's new decision before it is written; null leaves the claim to its own
 * transaction. The executor (core/src/execution, claim-at-decision.ts) implements it; the decision
 * carries its plan through untouched, so the pipeline does not depend on execution.
 */
export type ClaimWithDecisionFn<Plan> = (d: {
  ctx: DecisionContext;
  write: DecisionWrite;
  now: Date;
}) => ClaimedDecision<Plan> | null;

/** A call of either protection mode after the HTTP-level checks; `Plan` is the executor's, when it claims with the decision. */
export interface DecisionCall<Plan = unknown> extends AuthorizeCall {
  execution: "caller" | "gateway";
  /** tools/call: claim an allowed call for execution in its decision's write (core/src/execution). */
  claimWithDecision?: ClaimWithDecisionFn<Plan>;
  /**
   * tools/call: a call without an idempotency key whose verdict needs a person repeats the open
   * held action of the identical call instead of opening another approval request (identical-held-store.ts).
   */
  resumeIdenticalHeld?: boolean;
}

/** What deciding a call came to: nothing recorded (with the refusal), or the recorded action. */
export type Decided<Plan = unknown> =
  | { kind: "unrecorded"; code: GatewayCode; detail: string }
  | {
      kind: "recorded";
      view: ActionView;
      /** The action was recorded before this request (a repeat of its idempotency key). */
      resumed: boolean;
      /** This request raced another one with the same key and lost the write. */
      raced: boolean;
      /** Claimed for execution with the decision: run it with this plan, no claim of its own. */
      claimed?: Plan;
    };
