import { describe, expect, it } from "vitest";
import { validatePolicy } from "../validate.js";

/** One test per limit of SPEC 8.3 on policy documents: the limit itself passes, one more fails with its own code. */

const arg = (extra: object) => ({ field: "arguments", path: "$.x", ...extra });
const docWith = (conditions: object[], rules = 1) => ({
  rules: Array.from({ length: rules }, (_, i) => ({ id: `r${i}`, effect: "deny", conditions })),
});
function codes(doc: unknown): string[] {
  const r = validatePolicy(doc);
  return r.ok ? [] : r.issues.map((i) => i.code);
}

describe("limits of SPEC 8.3", () => {
  it("at most 16 argument conditions per rule", () => {
    const n = (k: number) => Array.from({ length: k }, (_, i) => arg({ path: `$.a${i}`, op: "exists" }));
    expect(codes(docWith(n(16)))).toEqual([]);
    expect(codes(docWith(n(17)))).toEqual(["too_many_argument_conditions"]);
  });

  it("at most 512 argument conditions per document", () => {
    const sixteen = Array.from({ length: 16 }, (_, i) => arg({ path: `$.a${i}`, op: "exists" }));
    expect(codes(docWith(sixteen, 32))).toEqual([]);
    const doc = docWith(sixteen, 32);
    doc.rules.push({ id: "one-more", effect: "deny", conditions: [arg({ op: "exists" })] });
    expect(codes(doc)).toEqual(["too_many_argument_conditions_in_document"]);
  });

  it("a path has at most 28 tokens", () => {
    const path = (k: number) => "$" + ".a".repeat(k);
    expect(codes(docWith([arg({ path: path(28), op: "exists" })]))).toEqual([]);
    expect(codes(docWith([arg({ path: path(29), op: "exists" })]))).toEqual(["path_too_long"]);
  });

  it("in and not_in take at most 256 values", () => {
    const values = (k: number) => Array.from({ length: k }, (_, i) => `v${i}`);
    for (const op of ["in", "not_in"]) {
      expect(codes(docWith([arg({ op, value: values(256) })]))).toEqual([]);
      expect(codes(docWith([arg({ op, value: values(257) })]))).toEqual(["too_many_values"]);
    }
  });

  it("starts_with and ends_with take at most 64 values", () => {
    const values = (k: number) => Array.from({ length: k }, (_, i) => `p${i}`);
    for (const op of ["starts_with", "ends_with"]) {
      expect(codes(docWith([arg({ op, value: values(64) })]))).toEqual([]);
      expect(codes(docWith([arg({ op, value: values(65) })]))).toEqual(["too_many_affixes"]);
    }
  });

  it("text operands are at most 1024 characters", () => {
    const t = (k: number) => "x".repeat(k);
    const cases = (s: string) => [
      arg({ op: "eq", value: s }),
      arg({ op: "in", value: [s] }),
      arg({ op: "starts_with", value: s }),
      arg({ op: "ends_with", value: [s] }),
      arg({ op: "matches", pattern: s }),
      { field: "action", op: "eq", value: s },
      { field: "action", op: "matches", pattern: s },
    ];
    for (const c of cases(t(1024))) expect(codes(docWith([c]))).toEqual([]);
    for (const c of cases(t(1025))) expect(codes(docWith([c]))).toEqual(["text_too_long"]);
  });

  it("decimal bounds and values have at most 40 digits before and after the point", () => {
    const forty = "9".repeat(40);
    const ok = `${forty}.${forty}`;
    const cases = (d: string) => [
      { field: "amount", op: "lte", threshold: d, currency: "EUR" },
      { field: "amount", op: "eq", value: d, currency: "EUR" },
      arg({ op: "gt", threshold: d }),
    ];
    for (const c of cases(ok)) expect(codes(docWith([c]))).toEqual([]);
    for (const c of cases(`1${ok}`)) expect(codes(docWith([c]))).toEqual(["decimal_too_long"]);
    for (const c of cases(`${ok}1`)) expect(codes(docWith([c]))).toEqual(["decimal_too_long"]);
  });

  it("a document is at most 256 KiB", () => {
    // Each rule is ~1 KiB as canonical JSON, so 300 of them pass the limit.
    const big = {
      rules: Array.from({ length: 300 }, (_, i) => ({
        id: `r${i}`,
        effect: "deny",
        tools: ["t".repeat(1000)],
      })),
    };
    expect(codes(big)).toEqual(["document_too_large"]);
    expect(codes({ rules: big.rules.slice(0, 200) })).toEqual([]);
  });
});
