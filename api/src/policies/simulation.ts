import { ServiceError } from "@countersign/protocol/errors";
import {
  decisionMap,
  runExamples,
  simulate,
  validatePolicy,
  policyInvalidError,
  compilePolicy,
  type Baseline,
  type CompiledPolicy,
} from "@countersign/protocol/policy";
import { checkArguments } from "@countersign/core/decision";
import type { Queryable } from "@countersign/core/store";
import type { SimulationRequest, StoredBaseline } from "@countersign/protocol/wire";
import { recordedInputs } from "./recorded-inputs-store.js";
import { compiledVersion, mapTools, namedVersion, type PolicyRow } from "./store.js";

export const simulationBounds = { windowDays: 90, calls: 100 } as const;

function compileSubmitted(document: unknown): CompiledPolicy {
  const v = validatePolicy(document);
  if (!v.ok)
    throw policyInvalidError(
      v.issues.map((i) => ({ ...i, path: i.path ? `candidate.document.${i.path}` : "candidate.document" })),
    );
  return compilePolicy(v.document);
}

/**
 * A hypothetical call is decided as the Gateway would decide it, so it must be
 * a call the Gateway would accept: an amount comes with its currency (422
 * INVALID_AMOUNT) and arguments keep the tool-call limits of SPEC 8.3 (422
 * INVALID_ARGUMENTS). Problems are named, never the values.
 */
function checkHypotheticalCall(c: NonNullable<SimulationRequest["calls"]>[number], i: number): void {
  if ((c.amount === undefined) !== (c.currency === undefined)) {
    throw new ServiceError("INVALID_AMOUNT", `calls.${i}: an amount and its currency go together`, {
      issues: [
        {
          path: `calls.${i}.currency`,
          code: "amount_needs_currency",
          message: "an amount and its currency go together",
        },
      ],
    });
  }
  if (c.arguments !== undefined) {
    const check = checkArguments(c.arguments);
    if (!check.ok) {
      const message = check.message ?? "the arguments break the tool-call limits";
      throw new ServiceError("INVALID_ARGUMENTS", `calls.${i}: ${message}`, {
        issues: [{ path: `calls.${i}.arguments`, code: check.problem ?? "invalid_arguments", message }],
      });
    }
  }
}

const outcome = (d: { effect: string; rule_id: string | null }) => ({ effect: d.effect, rule_id: d.rule_id });

/**
 * Runs a simulation: the recorded inputs of the window replayed under the
 * candidate against the baseline (counts, matrix, differences; 422
 * REPORT_TOO_LARGE from the engine before any evaluation), plus the
 * hypothetical calls, and on request the saved examples and the decision map.
 */
export async function runSimulation(db: Queryable, policy: PolicyRow, r: SimulationRequest, now: Date) {
  const candidate =
    "version_id" in r.candidate
      ? compiledVersion(await namedVersion(db, policy.id, r.candidate.version_id, "candidate.version_id"))
      : compileSubmitted(r.candidate.document);
  let baseline: Baseline;
  let stored: StoredBaseline;
  switch (r.baseline.kind) {
    case "active": {
      if (!policy.active_version_id)
        throw new ServiceError("NO_ACTIVE_POLICY", "the policy has no active version to compare with");
      baseline = {
        kind: "policy",
        policy: compiledVersion(await namedVersion(db, policy.id, policy.active_version_id, "baseline")),
      };
      stored = { kind: "active", version_id: policy.active_version_id };
      break;
    }
    case "version":
      baseline = {
        kind: "policy",
        policy: compiledVersion(
          await namedVersion(db, policy.id, r.baseline.version_id, "baseline.version_id"),
        ),
      };
      stored = { kind: "version", version_id: r.baseline.version_id };
      break;
    default:
      baseline = { kind: r.baseline.kind };
      stored = { kind: r.baseline.kind, version_id: null };
  }
  const inputs = await recordedInputs(db, {
    organizationId: policy.organization_id,
    policyId: policy.id,
    scope: r.scope,
    environment: r.environment,
    since: new Date(now.getTime() - r.window_days * 86_400_000),
    until: now,
  });
  const report = simulate(candidate, baseline, inputs);
  const calls = (r.calls ?? []).map((c, i) => {
    checkHypotheticalCall(c, i);
    const input = {
      tool: c.tool,
      action: c.action,
      amount: c.amount ?? null,
      currency: c.currency ?? null,
      arguments: c.arguments ?? {},
    };
    const cand = candidate.evaluate(input);
    const base = baseline.kind === "policy" ? baseline.policy.evaluate(input) : null;
    return {
      index: i,
      tool: c.tool,
      action: c.action,
      candidate: outcome(cand),
      baseline: base ? outcome(base) : null,
    };
  });
  return {
    report,
    baseline: stored,
    calls,
    examples: r.examples ? runExamples(candidate, policy.examples) : undefined,
    decision_map: r.decision_map
      ? decisionMap(candidate, await mapTools(db, policy.organization_id))
      : undefined,
  };
}
