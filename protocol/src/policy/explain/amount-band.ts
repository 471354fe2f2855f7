import { compareScaled } from "../conditions/numeric.js";
import type { CompiledPolicy } from "../compile.js";
import { fromScaled } from "../decimal.js";
import type { Decision } from "../evaluate.js";

/**
 * The range of amounts, in the call's currency, over which the decision stays
 * the same with everything else about the call unchanged (SPEC 2.9). Bounds
 * use the language's operators: `gt`/`gte` below, `lt`/`lte` above; an
 * absent side is unbounded. Inclusive bounds are common (a rule "gt 100"
 * leaves 100 itself on the lower side), so both forms are needed.
 */
export interface AmountBand {
  currency: string;
  gt?: string;
  gte?: string;
  lt?: string;
  lte?: string;
}

interface Segment {
  /** An amount inside the segment. */
  at: bigint;
  /** Lower edge: [value, inclusive]; undefined is unbounded. */
  lo?: [bigint, boolean];
  hi?: [bigint, boolean];
}

const same = (a: Decision, b: Decision) =>
  a === b || (a.effect === b.effect && a.rule_index === b.rule_index);

/**
 * Between two neighbouring thresholds every amount condition has one answer,
 * so the decision is constant on each open interval and on each threshold.
 * Amounts have at most 40 decimals (units of 10^-40), so an open interval
 * one unit wide holds no amount and is skipped.
 */
function segments(thresholds: readonly bigint[]): Segment[] {
  const out: Segment[] = [];
  const first = thresholds[0];
  if (first === undefined) return [{ at: 0n }];
  out.push({ at: first - 1n, hi: [first, false] });
  thresholds.forEach((t, i) => {
    out.push({ at: t, lo: [t, true], hi: [t, true] });
    const next = thresholds[i + 1];
    if (next === undefined) out.push({ at: t + 1n, lo: [t, false] });
    else if (next - t >= 2n) out.push({ at: t + (next - t) / 2n, lo: [t, false], hi: [next, false] });
  });
  return out;
}

export function amountBandFor(
  policy: CompiledPolicy,
  tool: string,
  action: string,
  amount: bigint,
  currency: string,
  args: Readonly<Record<string, unknown>>,
): AmountBand {
  const candidates = policy.candidates(tool, action);
  const set = new Set<bigint>();
  for (const r of candidates)
    for (const a of r.amountTests) if (a.currency === currency) set.add(a.threshold);
  const thresholds = [...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const segs = segments(thresholds);
  const k = segs.findIndex(
    (s) =>
      (!s.lo || compareScaled(s.lo[1] ? "gte" : "gt", amount, s.lo[0])) &&
      (!s.hi || compareScaled(s.hi[1] ? "lte" : "lt", amount, s.hi[0])),
  );
  const decide = (x: bigint) => policy.decideScaled(tool, action, x, currency, args);
  const here = decide(amount);
  let lo = k;
  while (lo > 0 && same(decide(segs[lo - 1]!.at), here)) lo--;
  let hi = k;
  while (hi < segs.length - 1 && same(decide(segs[hi + 1]!.at), here)) hi++;
  const band: AmountBand = { currency };
  const low = segs[lo]!.lo;
  if (low) band[low[1] ? "gte" : "gt"] = fromScaled(low[0]);
  const high = segs[hi]!.hi;
  if (high) band[high[1] ? "lte" : "lt"] = fromScaled(high[0]);
  return band;
}
