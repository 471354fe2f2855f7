import { UNKNOWN_ARGUMENTS, type CompiledPolicy } from "../compile.js";
import { fromScaled } from "../decimal.js";
import type { Effect } from "../document/schema.js";
import type { AmountBand } from "../explain/amount-band.js";

/**
 * The decision map of a version (GET .../decision-map): for each tool, what
 * the policy decides over the whole range of amounts, without knowing any
 * arguments. Where argument conditions could change the outcome, every
 * possible outcome is listed.
 */
export interface MapTool {
  /** Exposed name. */
  tool: string;
  action: string;
  /**
   * The tool's amount mapping: null when it maps none; `currency` null when
   * the currency is read from the arguments (every currency is mapped).
   */
  amount?: { currency: string | null } | null;
}

export interface MapOutcome {
  effect: Effect;
  rule_id: string | null;
}

export interface MapEntry {
  /** Null for a tool without amounts. `currency` null: any currency the policy does not name. */
  amount: (Omit<AmountBand, "currency"> & { currency: string | null }) | null;
  /** The decision when arguments cannot change it, else null. */
  decision: MapOutcome | null;
  /** Every outcome the arguments could lead to, most precedent first. */
  possible: MapOutcome[];
}

export interface DecisionMap {
  tools: { tool: string; action: string; entries: MapEntry[] }[];
}

type Range = Omit<AmountBand, "currency">;
const lower = (r: Range): Range =>
  r.gt !== undefined ? { gt: r.gt } : r.gte !== undefined ? { gte: r.gte } : {};
const upper = (r: Range): Range =>
  r.lt !== undefined ? { lt: r.lt } : r.lte !== undefined ? { lte: r.lte } : {};
const outcome = (d: { effect: Effect; rule_id: string | null }): MapOutcome => ({
  effect: d.effect,
  rule_id: d.rule_id,
});
/** No amount condition names this currency, so it stands for "any other currency". */
const OTHER = "";

function entriesFor(policy: CompiledPolicy, t: MapTool, currency: string): MapEntry[] {
  const thresholds = [
    ...new Set(
      policy
        .candidates(t.tool, t.action)
        .flatMap((r) => r.amountTests.filter((a) => a.currency === currency).map((a) => a.threshold)),
    ),
  ].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // Same segmentation as the amount band: open intervals between thresholds and the thresholds themselves.
  const segs: { at: bigint; range: Omit<AmountBand, "currency"> }[] = [];
  if (thresholds.length === 0) segs.push({ at: 0n, range: {} });
  thresholds.forEach((x, i) => {
    const s = fromScaled(x);
    if (i === 0) segs.push({ at: x - 1n, range: { lt: s } });
    segs.push({ at: x, range: { gte: s, lte: s } });
    const next = thresholds[i + 1];
    if (next === undefined) segs.push({ at: x + 1n, range: { gt: s } });
    else if (next - x >= 2n) segs.push({ at: x + (next - x) / 2n, range: { gt: s, lt: fromScaled(next) } });
  });
  const out: MapEntry[] = [];
  for (const seg of segs) {
    const open = policy.decideOpen(t.tool, t.action, seg.at, currency, UNKNOWN_ARGUMENTS);
    const entry: MapEntry = {
      amount: { currency: currency === OTHER ? null : currency, ...seg.range },
      decision: open.decision ? outcome(open.decision) : null,
      possible: open.possible.map(outcome),
    };
    const prev = out[out.length - 1];
    // Neighbouring segments with the same outcomes merge into one range.
    if (prev && JSON.stringify(prev.possible) === JSON.stringify(entry.possible)) {
      prev.amount = { currency: prev.amount!.currency, ...lower(prev.amount!), ...upper(seg.range) };
    } else out.push(entry);
  }
  return out;
}

export function decisionMap(policy: CompiledPolicy, tools: readonly MapTool[]): DecisionMap {
  return {
    tools: tools.map((t) => {
      let entries: MapEntry[];
      if (!t.amount) {
        const open = policy.decideOpen(t.tool, t.action, null, null, UNKNOWN_ARGUMENTS);
        entries = [
          {
            amount: null,
            decision: open.decision ? outcome(open.decision) : null,
            possible: open.possible.map(outcome),
          },
        ];
      } else if (t.amount.currency !== null) {
        entries = entriesFor(policy, t, t.amount.currency);
      } else {
        const named = [
          ...new Set(
            policy.candidates(t.tool, t.action).flatMap((r) => r.amountTests.map((a) => a.currency)),
          ),
        ].sort();
        entries = [...named, OTHER].flatMap((c) => entriesFor(policy, t, c));
      }
      return { tool: t.tool, action: t.action, entries };
    }),
  };
}
