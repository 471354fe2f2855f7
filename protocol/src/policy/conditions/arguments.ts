import { integerToScaled, toScaled } from "../decimal.js";
import type { ArgumentCondition } from "../document/schema.js";
import { MISSING, parsePath, readPath, type PathToken } from "../json-path.js";
import { compareScaled } from "./numeric.js";
import { compileTextPredicate } from "./text.js";

/**
 * Conditions on the exact tool arguments. Each reads one value by JSON path.
 * A missing value satisfies only `exists: false`; every other operator needs
 * the value to be there (write an `exists` condition to test presence).
 * Operators other than `exists` look at scalars only: an object or array at
 * the path never satisfies eq, in, not_in or the text and numeric operators.
 */
export interface CompiledArgumentCondition {
  tokens: readonly PathToken[];
  /** Identifies the path, so conditions on one path share one read per evaluation. */
  pathKey: string;
  /** Whether the condition holds for the value at its path (MISSING when absent). */
  holds(value: unknown): boolean;
  test(args: unknown): boolean;
}

type Scalar = string | number | boolean | null;

function isScalar(v: unknown): v is Scalar {
  return v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean";
}

/** Numbers in arguments are whole; decimals arrive as strings. Both compare exactly. */
function numericValue(v: unknown): bigint | undefined {
  if (typeof v === "number") return integerToScaled(v);
  if (typeof v === "string") return toScaled(v);
  return undefined;
}

const UNIT = 10n ** 40n;

/** Floor and ceiling of a scaled threshold as numbers, when both are safe integers. */
function integerBounds(scaled: bigint): { floor: number; ceil: number } | undefined {
  let floor = scaled / UNIT;
  if (scaled < 0n && scaled % UNIT !== 0n) floor -= 1n;
  const ceil = scaled % UNIT === 0n ? floor : floor + 1n;
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  if (floor < -max || ceil > max) return undefined;
  return { floor: Number(floor), ceil: Number(ceil) };
}

/** For a whole n: n > t iff n > floor(t); n >= t iff n >= ceil(t); n < t iff n < ceil(t); n <= t iff n <= floor(t). */
function compareInteger(
  op: "gt" | "gte" | "lt" | "lte",
  n: number,
  t: { floor: number; ceil: number },
): boolean {
  switch (op) {
    case "gt":
      return n > t.floor;
    case "gte":
      return n >= t.ceil;
    case "lt":
      return n < t.ceil;
    case "lte":
      return n <= t.floor;
  }
}

function valuePredicate(c: ArgumentCondition): (v: unknown) => boolean {
  switch (c.op) {
    case "exists": {
      const want = c.value ?? true;
      return (v) => (v !== MISSING) === want;
    }
    case "eq": {
      const want = c.value;
      return (v) => v === want;
    }
    case "in":
    case "not_in": {
      const set = new Set<Scalar>(c.value);
      const inside = c.op === "in";
      return (v) => v !== MISSING && isScalar(v) && set.has(v) === inside;
    }
    case "starts_with":
    case "ends_with": {
      const p = compileTextPredicate(c.op, c.value);
      return (v) => typeof v === "string" && p(v);
    }
    case "matches": {
      const p = compileTextPredicate("matches", c.pattern);
      return (v) => typeof v === "string" && p(v);
    }
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const threshold = toScaled(c.threshold);
      if (threshold === undefined) throw new TypeError("compileArgumentCondition: document not validated");
      const op = c.op;
      const fast = integerBounds(threshold);
      return (v) => {
        // Hot path: a whole number against a threshold whose floor and ceiling are safe integers needs no BigInt.
        if (fast && typeof v === "number" && Number.isSafeInteger(v)) return compareInteger(op, v, fast);
        const n = numericValue(v);
        return n !== undefined && compareScaled(op, n, threshold);
      };
    }
  }
}

export function compileArgumentCondition(c: ArgumentCondition): CompiledArgumentCondition {
  const parsed = parsePath(c.path);
  if ("error" in parsed) throw new TypeError("compileArgumentCondition: document not validated");
  const tokens = parsed.tokens;
  const holds = valuePredicate(c);
  return { tokens, pathKey: JSON.stringify(tokens), holds, test: (args) => holds(readPath(args, tokens)) };
}

/** Whether a condition holds for a given value at its path (MISSING for absent); used by lint. */
export function argumentValueHolds(c: ArgumentCondition, value: unknown): boolean {
  return valuePredicate(c)(value);
}
