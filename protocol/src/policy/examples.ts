import { z } from "zod";
import { UNKNOWN_ARGUMENTS, scaledAmount, type CompiledPolicy } from "./compile.js";
import { isDecimal } from "./decimal.js";
import type { PolicyIssue } from "./document/checks.js";
import { policyLimits } from "./document/limits.js";
import type { Effect } from "./document/schema.js";

/**
 * Saved examples (SPEC 2.4): a call without arguments and the outcome and
 * deciding rule expected for it. An example is evaluated as the call with an
 * empty arguments object; when an argument condition could change its
 * decision, the result says so (`depends_on_arguments`).
 */
export const exampleOutcomes = ["allowed", "requires_approval", "denied", "none"] as const;
export type ExampleOutcome = (typeof exampleOutcomes)[number];

export const exampleSchema = z.strictObject({
  id: z.string().min(1).max(128),
  label: z.string().max(200).optional(),
  action: z.string().min(1).max(1024),
  tool: z.string().min(1).max(128),
  amount: z
    .string()
    .refine(isDecimal, "a decimal of at most 40 digits before and after the point")
    .optional(),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .optional(),
  /** `none` records no expectation: the example is shown, never passes or fails. */
  expected_outcome: z.enum(exampleOutcomes),
  /** Deciding rule id; empty means the default. */
  expected_rule: z.string().max(128),
});
export type PolicyExample = z.infer<typeof exampleSchema>;

const outcomeOf: Record<Effect, Exclude<ExampleOutcome, "none">> = {
  allow: "allowed",
  require_approval: "requires_approval",
  deny: "denied",
};

/** Validates a list of examples (PUT examples): at most 200, unique ids, currency with amount. */
export function validateExamples(
  input: unknown,
): { ok: true; examples: PolicyExample[] } | { ok: false; issues: PolicyIssue[] } {
  const parsed = z.array(exampleSchema).max(policyLimits.examples).safeParse(input);
  if (!parsed.success) {
    return {
      ok: false,
      issues: parsed.error.issues.map((i) => ({
        path: i.path.map(String).join("."),
        code: i.code,
        message: i.message,
      })),
    };
  }
  const issues: PolicyIssue[] = [];
  const seen = new Set<string>();
  parsed.data.forEach((e, i) => {
    if (seen.has(e.id))
      issues.push({ path: `${i}.id`, code: "duplicate_example_id", message: "example ids are unique" });
    seen.add(e.id);
    if ((e.amount === undefined) !== (e.currency === undefined)) {
      issues.push({
        path: `${i}.currency`,
        code: "amount_needs_currency",
        message: "an amount and its currency go together",
      });
    }
  });
  return issues.length ? { ok: false, issues } : { ok: true, examples: parsed.data };
}

export interface ExampleResult {
  id: string;
  label?: string;
  /** Null when the example states no expectation. */
  passed: boolean | null;
  expected: { outcome: ExampleOutcome; rule_id: string | null };
  actual: { outcome: Exclude<ExampleOutcome, "none">; rule_id: string | null };
  depends_on_arguments: boolean;
}

export interface ExamplesReport {
  results: ExampleResult[];
  passed: number;
  failed: number;
  without_expectation: number;
}

/** An example passes only when both the outcome and the deciding rule match (SPEC 2.4). */
export function runExamples(policy: CompiledPolicy, examples: readonly PolicyExample[]): ExamplesReport {
  const results = examples.map((e): ExampleResult => {
    const input = { tool: e.tool, action: e.action, amount: e.amount ?? null, currency: e.currency ?? null };
    const decision = policy.evaluate(input);
    const open = policy.decideOpen(e.tool, e.action, scaledAmount(input), input.currency, UNKNOWN_ARGUMENTS);
    const expectedRule = e.expected_rule === "" ? null : e.expected_rule;
    const actual = { outcome: outcomeOf[decision.effect], rule_id: decision.rule_id };
    return {
      id: e.id,
      ...(e.label !== undefined ? { label: e.label } : {}),
      passed:
        e.expected_outcome === "none"
          ? null
          : actual.outcome === e.expected_outcome && actual.rule_id === expectedRule,
      expected: { outcome: e.expected_outcome, rule_id: expectedRule },
      actual,
      depends_on_arguments: open.possible.length > 1,
    };
  });
  return {
    results,
    passed: results.filter((r) => r.passed === true).length,
    failed: results.filter((r) => r.passed === false).length,
    without_expectation: results.filter((r) => r.passed === null).length,
  };
}
