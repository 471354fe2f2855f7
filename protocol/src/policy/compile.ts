import { compileActionCondition } from "./conditions/action.js";
import { compileAmountCondition, type CompiledAmountCondition } from "./conditions/amount.js";
import { ArgumentReads } from "./conditions/argument-reads.js";
import { compileArgumentCondition, type CompiledArgumentCondition } from "./conditions/arguments.js";
import type { TextPredicate } from "./conditions/text.js";
import { toScaled } from "./decimal.js";
import { policyDigest } from "./digest.js";
import {
  DEFAULT_APPROVERS,
  languageRevision,
  type LanguageRevision,
  type PolicyDocument,
  type Rule,
} from "./document/schema.js";
import { PolicyInputError, restriction, type Decision, type PolicyInput } from "./evaluate.js";
import { compileGlob, type GlobMatcher } from "./glob.js";

/** Three-valued match: arguments may be unknown (simulation, examples-as-recorded, decision maps). */
export const NO = 0;
export const YES = 1;
export const UNKNOWN = 2;
export type Tri = typeof NO | typeof YES | typeof UNKNOWN;

/** Marker for "the arguments are not known" in three-valued evaluation. */
export const UNKNOWN_ARGUMENTS: unique symbol = Symbol("unknown-arguments");
export type Arguments = Readonly<Record<string, unknown>> | typeof UNKNOWN_ARGUMENTS;

export interface CompiledRule {
  readonly index: number;
  readonly rule: Rule;
  readonly decision: Decision;
  readonly tools: GlobMatcher | null;
  readonly actionTests: readonly TextPredicate[];
  readonly amountTests: readonly CompiledAmountCondition[];
  readonly argumentTests: readonly CompiledArgumentCondition[];
  /** For each argument test, its path's slot in the policy's ArgumentReads. */
  readonly argumentSlots: readonly number[];
}

/** Outcome of three-valued evaluation: `possible` lists every decision the unknown arguments could lead to. */
export interface OpenDecision {
  /** The decision when the arguments cannot change it, else null. */
  decision: Decision | null;
  /** Every decision the unknown arguments could lead to, in precedence order. */
  possible: readonly Decision[];
}

const EMPTY_ARGS: Readonly<Record<string, unknown>> = Object.freeze({});
/** Bound on the (tool, action) cache so hostile names cannot grow it without limit. */
const CANDIDATE_CACHE_LIMIT = 4096;

function freezeDecision(d: Decision): Decision {
  if (d.approvers) Object.freeze(d.approvers);
  return Object.freeze(d);
}

function compileRule(
  rule: Rule,
  index: number,
  slotOf: (c: CompiledArgumentCondition) => number,
): CompiledRule {
  const conditions = rule.conditions ?? [];
  const toolMatchers = rule.tools?.map(compileGlob);
  const approvers =
    rule.effect === "require_approval" && rule.approvers
      ? { roles: Object.freeze([...rule.approvers.roles]), count: rule.approvers.count ?? 1 }
      : null;
  const guard = rule.guard === true;
  const argumentTests = conditions.flatMap((c) =>
    c.field === "arguments" ? [compileArgumentCondition(c)] : [],
  );
  return {
    index,
    rule,
    decision: freezeDecision({
      effect: rule.effect,
      rule_id: rule.id,
      rule_index: index,
      approvers,
      approval_ttl_seconds: rule.effect === "require_approval" ? (rule.approval_ttl_seconds ?? null) : null,
      description: rule.description ?? null,
      guard,
      relaxable: rule.effect === "require_approval" && !guard,
    }),
    tools: toolMatchers ? (tool) => toolMatchers.some((m) => m(tool)) : null,
    actionTests: conditions.flatMap((c) => (c.field === "action" ? [compileActionCondition(c)] : [])),
    amountTests: conditions.flatMap((c) => (c.field === "amount" ? [compileAmountCondition(c)] : [])),
    argumentTests,
    argumentSlots: argumentTests.map(slotOf),
  };
}

/** Amount and argument conditions: the part of a rule that varies per call of one tool and action. `reads` null: arguments unknown. */
function callMatch(
  r: CompiledRule,
  amount: bigint | null,
  currency: string | null,
  reads: ArgumentReads | null,
): Tri {
  for (const a of r.amountTests) if (!a.test(amount, currency)) return NO;
  const tests = r.argumentTests;
  if (tests.length === 0) return YES;
  if (reads === null) return UNKNOWN;
  for (let i = 0; i < tests.length; i++) if (!tests[i]!.holds(reads.read(r.argumentSlots[i]!))) return NO;
  return YES;
}

/**
 * A validated document compiled for repeated evaluation: globs compiled once,
 * decimals read once, rules sorted into precedence order once, and the rules
 * that can apply to a (tool, action) pair cached.
 *
 * Precedence: the most restrictive matching rule decides (deny, then
 * require_approval, then allow); among equally restrictive matches the first
 * in document order; the default effect when none matches.
 */
export class CompiledPolicy {
  readonly document: PolicyDocument;
  readonly digest: string;
  readonly revision: LanguageRevision;
  /** Rules in document order. */
  readonly rules: readonly CompiledRule[];
  /** Rules in precedence order: the first that matches decides. */
  readonly ordered: readonly CompiledRule[];
  readonly defaultDecision: Decision;
  private readonly candidateCache = new Map<string, Map<string, readonly CompiledRule[]>>();
  private cachedPairs = 0;
  private readonly reads: ArgumentReads;

  constructor(document: PolicyDocument) {
    this.document = document;
    this.digest = policyDigest(document);
    this.revision = languageRevision(document);
    const slots = new Map<string, number>();
    const paths: (readonly (string | number)[])[] = [];
    const slotOf = (c: CompiledArgumentCondition) => {
      let slot = slots.get(c.pathKey);
      if (slot === undefined) {
        slot = paths.push(c.tokens) - 1;
        slots.set(c.pathKey, slot);
      }
      return slot;
    };
    this.rules = document.rules.map((r, i) => compileRule(r, i, slotOf));
    this.reads = new ArgumentReads(paths);
    this.ordered = [...this.rules].sort(
      (a, b) => restriction[b.rule.effect] - restriction[a.rule.effect] || a.index - b.index,
    );
    const effect = document.default_effect ?? "deny";
    const approvers = document.default_approvers;
    this.defaultDecision = freezeDecision({
      effect,
      rule_id: null,
      rule_index: -1,
      approvers:
        effect === "require_approval"
          ? {
              roles: Object.freeze([...(approvers?.roles ?? DEFAULT_APPROVERS.roles)]),
              count: approvers?.count ?? DEFAULT_APPROVERS.count,
            }
          : null,
      approval_ttl_seconds:
        effect === "require_approval" ? (document.default_approval_ttl_seconds ?? null) : null,
      description: null,
      guard: false,
      relaxable: effect !== "allow",
    });
  }

  /** Rules, in precedence order, whose tool list and action conditions admit this call. */
  candidates(tool: string, action: string): readonly CompiledRule[] {
    let byAction = this.candidateCache.get(tool);
    const hit = byAction?.get(action);
    if (hit) return hit;
    const list = this.ordered.filter(
      (r) => (r.tools === null || r.tools(tool)) && r.actionTests.every((t) => t(action)),
    );
    if (this.cachedPairs >= CANDIDATE_CACHE_LIMIT) {
      this.candidateCache.clear();
      this.cachedPairs = 0;
      byAction = undefined;
    }
    if (!byAction) {
      byAction = new Map();
      this.candidateCache.set(tool, byAction);
    }
    byAction.set(action, list);
    this.cachedPairs++;
    return list;
  }

  /** The decision for one call. Deterministic; the result is shared and frozen. */
  evaluate(input: PolicyInput): Decision {
    const amount = scaledAmount(input);
    return this.decideScaled(
      input.tool,
      input.action,
      amount,
      input.currency ?? null,
      input.arguments ?? EMPTY_ARGS,
    );
  }

  /** Evaluation on an already-read amount; the amount band walks amounts through this. */
  decideScaled(
    tool: string,
    action: string,
    amount: bigint | null,
    currency: string | null,
    args: Readonly<Record<string, unknown>>,
  ): Decision {
    const reads = this.reads.begin(args);
    for (const r of this.candidates(tool, action)) {
      if (callMatch(r, amount, currency, reads) === YES) return r.decision;
    }
    return this.defaultDecision;
  }

  /**
   * Three-valued evaluation for callers that may not know the arguments. The
   * real winner is the first truly matching rule in precedence order, so it is
   * either a rule of unknown match ahead of the first certain match, or that
   * certain match (or the default).
   */
  decideOpen(
    tool: string,
    action: string,
    amount: bigint | null,
    currency: string | null,
    args: Arguments,
  ): OpenDecision {
    const possible: Decision[] = [];
    let certain = false;
    const reads = args === UNKNOWN_ARGUMENTS ? null : this.reads.begin(args);
    for (const r of this.candidates(tool, action)) {
      const m = callMatch(r, amount, currency, reads);
      if (m === NO) continue;
      possible.push(r.decision);
      if (m === YES) {
        certain = true;
        break;
      }
    }
    if (!certain) possible.push(this.defaultDecision);
    return { decision: possible.length === 1 ? possible[0]! : null, possible };
  }

  /** Whether a rule matches this call, ignoring precedence (explanations list every matching rule). */
  ruleMatches(r: CompiledRule, input: PolicyInput): boolean {
    if (r.tools !== null && !r.tools(input.tool)) return false;
    if (!r.actionTests.every((t) => t(input.action))) return false;
    return (
      callMatch(
        r,
        scaledAmount(input),
        input.currency ?? null,
        this.reads.begin(input.arguments ?? EMPTY_ARGS),
      ) === YES
    );
  }
}

export function scaledAmount(input: PolicyInput): bigint | null {
  if (input.amount === undefined || input.amount === null) return null;
  const scaled = toScaled(input.amount);
  if (scaled === undefined)
    throw new PolicyInputError("amount is not a decimal of at most 40 digits before and after the point");
  return scaled;
}

/** Compiles a validated document (validatePolicy / parsePolicy first). */
export function compilePolicy(document: PolicyDocument): CompiledPolicy {
  return new CompiledPolicy(document);
}
