// The examples gate of a Policy, for the generation being reconciled: which of the spec's saved
// examples fail, and how ExamplesPassing says so. Activation asks the Cloud API's gate
// (policy-activation.ts); a version active already is checked here with the policy engine itself,
// as `countersign policy test` runs it, on this generation's examples, so an edit of the examples
// alone is judged (never an earlier pass's answer carried over) and costs no request.
import {
  compilePolicy,
  requireApprovalDraft,
  runExamples,
  validatePolicy,
  type ExampleResult,
  type PolicyExample,
} from "@countersign/protocol/policy";
import type { PolicySpec, PolicyStatus } from "../crds/policy.js";
import type { ConditionInput } from "../status/conditions.js";

export type FailingExample = Omit<ExampleResult, "passed">;
type FailingShown = { id: string; expected: string; actual: string };

const describeOutcome = (o: { outcome: string; rule_id: string | null }) =>
  `${o.outcome} by ${o.rule_id ?? "the default"}`;

export const failingOf = (list: FailingExample[]): FailingShown[] =>
  list.map((f) => ({ id: f.id, expected: describeOutcome(f.expected), actual: describeOutcome(f.actual) }));

export const listedFailing = (failing: FailingShown[]) =>
  `${failing.length} saved example(s) fail: ${failing
    .map((f) => `${f.id} (expected ${f.expected}, got ${f.actual})`)
    .join("; ")}`;

/** The document the version in force should hold: the spec's, or the require-approval copy of the candidate. */
export function documentInForce(spec: PolicySpec): unknown {
  if (spec.rollout.stage !== "RequireApproval" || !spec.rollout.candidate) return spec.document;
  const candidate = validatePolicy(spec.rollout.candidate);
  return candidate.ok ? requireApprovalDraft(candidate.document) : undefined;
}

/**
 * ExamplesPassing and gates.examples for `label`, active already, against `examples`; undefined
 * when the document cannot be compiled here (the Cloud API accepted it: a newer language, say),
 * in which case nothing is claimed.
 */
export function examplesOfActive(o: {
  document: unknown;
  examples: PolicyExample[];
  label: string;
  acknowledged: boolean;
}):
  | { condition: ConditionInput; gate: NonNullable<NonNullable<PolicyStatus["gates"]>["examples"]> }
  | undefined {
  const valid = o.document === undefined ? undefined : validatePolicy(o.document);
  if (!valid?.ok) return undefined;
  const report = runExamples(compilePolicy(valid.document), o.examples);
  const failing = failingOf(report.results.filter((r) => r.passed === false));
  if (failing.length === 0)
    return {
      condition: {
        type: "ExamplesPassing",
        status: "True",
        reason: "Passed",
        message: `${o.label} is active and passes the ${report.results.length} saved example(s)`,
      },
      gate: { passing: true },
    };
  return {
    condition: {
      type: "ExamplesPassing",
      status: "False",
      reason: o.acknowledged ? "FailingAcknowledged" : "ExamplesFailing",
      message: `${o.label} is active${o.acknowledged ? " with acknowledgeFailingExamples" : ""}: ${listedFailing(failing)}`,
    },
    gate: { passing: false, failing },
  };
}
