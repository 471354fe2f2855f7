/**
 * Exact decimal amounts (SPEC 8.3: up to 40 digits before and after the
 * point). Amounts decide money, so they are never floats: each is read once
 * into a BigInt scaled by 10^40, and compared as integers.
 */

export const MAX_DECIMAL_DIGITS = 40;
const SCALE_DIGITS = MAX_DECIMAL_DIGITS;
const SCALE = 10n ** BigInt(SCALE_DIGITS);

/** The text form accepted everywhere: optional minus, 1-40 digits, optional point and 1-40 digits. */
export const DECIMAL_PATTERN = /^-?\d{1,40}(\.\d{1,40})?$/;

/** Same shape without the digit bounds, so validation can tell "too long" from "not a decimal". */
const LOOSE_DECIMAL = /^-?\d+(\.\d+)?$/;

export type DecimalProblem = "not_a_decimal" | "too_many_digits";

/** Why a text is not an acceptable decimal, or undefined when it is. */
export function decimalProblem(text: string): DecimalProblem | undefined {
  if (DECIMAL_PATTERN.test(text)) return undefined;
  return LOOSE_DECIMAL.test(text) ? "too_many_digits" : "not_a_decimal";
}

export function isDecimal(text: unknown): text is string {
  return typeof text === "string" && DECIMAL_PATTERN.test(text);
}

/** The decimal as an integer count of 10^-40 units; undefined when the text is not a decimal. */
export function toScaled(text: string): bigint | undefined {
  if (!DECIMAL_PATTERN.test(text)) return undefined;
  const negative = text.startsWith("-");
  const body = negative ? text.slice(1) : text;
  const dot = body.indexOf(".");
  const whole = dot < 0 ? body : body.slice(0, dot);
  const frac = dot < 0 ? "" : body.slice(dot + 1);
  const scaled = BigInt(whole) * SCALE + BigInt(frac.padEnd(SCALE_DIGITS, "0"));
  return negative ? -scaled : scaled;
}

/** A whole JSON number (arguments hold only safe integers) as scaled units. */
export function integerToScaled(n: number): bigint | undefined {
  return Number.isSafeInteger(n) ? BigInt(n) * SCALE : undefined;
}

/** Shortest decimal text of scaled units: no trailing zeros, no "-0". */
export function fromScaled(scaled: bigint): string {
  const negative = scaled < 0n;
  const abs = negative ? -scaled : scaled;
  const whole = abs / SCALE;
  const frac = (abs % SCALE).toString().padStart(SCALE_DIGITS, "0").replace(/0+$/, "");
  const text = frac ? `${whole}.${frac}` : `${whole}`;
  return negative ? `-${text}` : text;
}

/** -1, 0 or 1; throws on text that is not a decimal (callers validate first). */
export function compareDecimal(a: string, b: string): -1 | 0 | 1 {
  const x = toScaled(a);
  const y = toScaled(b);
  if (x === undefined || y === undefined) throw new TypeError("compareDecimal: not a decimal");
  return x < y ? -1 : x > y ? 1 : 0;
}
