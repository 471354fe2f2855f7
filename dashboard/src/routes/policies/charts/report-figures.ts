import type { Effect, SimulationReport } from "@countersign/protocol/policy";

export const effects: Effect[] = ["allow", "require_approval", "deny"];
export const effectWords: Record<Effect, string> = {
  allow: "allow",
  require_approval: "require approval",
  deny: "deny",
};

/** How the report's calls changed, in the words and order the counts list uses. */
export const changes = [
  ["same", "Same"],
  ["less_restricted", "Less restricted"],
  ["more_restricted", "More restricted"],
  ["other_rule", "Decided by another rule"],
  ["other_approvers", "Other approvers"],
  ["not_evaluable", "Not evaluable"],
] as const satisfies readonly [keyof SimulationReport["counts"], string][];

/** Calls by effect under the baseline (the matrix's row sums; null without a baseline) and the candidate. */
export function effectTotals(
  report: SimulationReport,
): { effect: Effect; baseline: number | null; candidate: number }[] {
  return effects.map((e) => ({
    effect: e,
    baseline: report.matrix ? effects.reduce((n, c) => n + report.matrix![e][c], 0) : null,
    candidate: report.candidate_effects[e],
  }));
}

/**
 * The figures of the charts in one sentence each, for people who do not see them (and the same
 * text on screen as their caption): "Active version 1: allow 1, require approval 2, deny 0. ..."
 */
export function effectSummary(report: SimulationReport, baseline: string, candidate: string): string {
  const totals = effectTotals(report);
  const line = (who: string, pick: (t: (typeof totals)[number]) => number | null) =>
    `${who}: ${totals.map((t) => `${effectWords[t.effect]} ${pick(t)}`).join(", ")}.`;
  return [report.matrix ? line(baseline, (t) => t.baseline) : null, line(candidate, (t) => t.candidate)]
    .filter(Boolean)
    .join(" ");
}

export function changeSummary(report: SimulationReport): string {
  return `Of ${report.counts.recorded} recorded call(s): ${changes
    .map(([k, name]) => `${name.toLowerCase()} ${report.counts[k]}`)
    .join(", ")}.`;
}
