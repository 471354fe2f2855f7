import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compareDecimal,
  decimalProblem,
  fromScaled,
  integerToScaled,
  isDecimal,
  toScaled,
} from "./decimal.js";

describe("decimal amounts", () => {
  it("accepts up to 40 digits before and after the point", () => {
    const forty = "9".repeat(40);
    expect(isDecimal(`${forty}.${forty}`)).toBe(true);
    expect(isDecimal(`-${forty}`)).toBe(true);
    expect(decimalProblem(`1${forty}`)).toBe("too_many_digits");
    expect(decimalProblem(`1.${forty}1`)).toBe("too_many_digits");
    for (const bad of ["", "1.", ".5", "1e3", "+1", "0x10", " 1", "1,5", "NaN"])
      expect(decimalProblem(bad)).toBe("not_a_decimal");
  });

  it("compares exactly where floating point cannot", () => {
    expect(compareDecimal("0.1", "0.10")).toBe(0);
    expect(compareDecimal("9007199254740993", "9007199254740992")).toBe(1);
    expect(compareDecimal("0.0000000000000000000000000000000000000001", "0")).toBe(1);
    expect(compareDecimal("-1.5", "-1.49")).toBe(-1);
    expect(compareDecimal("-0", "0")).toBe(0);
  });

  it("reads whole numbers from arguments as exact values", () => {
    expect(integerToScaled(42)).toBe(toScaled("42"));
    expect(integerToScaled(1.5)).toBeUndefined();
    expect(integerToScaled(2 ** 60)).toBeUndefined();
  });

  it("round-trips through scaled units and orders like the numbers", () => {
    const dec = fc
      .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.nat({ max: 999999 }))
      .map(([neg, w, f]) => `${neg ? "-" : ""}${w}.${String(f).padStart(6, "0")}`);
    fc.assert(
      fc.property(dec, dec, (a, b) => {
        expect(toScaled(fromScaled(toScaled(a)!))).toBe(toScaled(a));
        const x = Number(a);
        const y = Number(b);
        if (Math.abs(x - y) > 1e6) expect(compareDecimal(a, b)).toBe(x < y ? -1 : 1);
      }),
    );
  });

  it("prints the shortest form", () => {
    expect(fromScaled(toScaled("100.500")!)).toBe("100.5");
    expect(fromScaled(toScaled("-0.0")!)).toBe("0");
    expect(fromScaled(toScaled("-2")!)).toBe("-2");
  });
});
