import type { NumericOp } from "./numeric.js";

/**
 * The set of numbers a conjunction of comparisons admits, for lint's
 * "never matches" and "covers" reasoning. Undefined bounds are unbounded.
 */
export interface Interval {
  lo?: bigint;
  loIncl: boolean;
  hi?: bigint;
  hiIncl: boolean;
}

export const everything = (): Interval => ({ loIncl: false, hiIncl: false });

export function narrow(iv: Interval, op: NumericOp | "eq", t: bigint): Interval {
  const out = { ...iv };
  if (op === "gt" || op === "gte" || op === "eq") {
    const incl = op !== "gt";
    if (out.lo === undefined || t > out.lo || (t === out.lo && !incl)) {
      out.lo = t;
      out.loIncl = incl;
    }
  }
  if (op === "lt" || op === "lte" || op === "eq") {
    const incl = op !== "lt";
    if (out.hi === undefined || t < out.hi || (t === out.hi && !incl)) {
      out.hi = t;
      out.hiIncl = incl;
    }
  }
  return out;
}

export function isEmpty(iv: Interval): boolean {
  if (iv.lo === undefined || iv.hi === undefined) return false;
  return iv.lo > iv.hi || (iv.lo === iv.hi && !(iv.loIncl && iv.hiIncl));
}

/** Whether every number in `inner` satisfies `op t`. */
export function within(inner: Interval, op: NumericOp | "eq", t: bigint): boolean {
  const lowOk = (strict: boolean) =>
    inner.lo !== undefined && (inner.lo > t || (inner.lo === t && (!strict || !inner.loIncl)));
  const highOk = (strict: boolean) =>
    inner.hi !== undefined && (inner.hi < t || (inner.hi === t && (!strict || !inner.hiIncl)));
  switch (op) {
    case "gt":
      return lowOk(true);
    case "gte":
      return lowOk(false);
    case "lt":
      return highOk(true);
    case "lte":
      return highOk(false);
    case "eq":
      return inner.lo === t && inner.hi === t && inner.loIncl && inner.hiIncl;
  }
}
