import { compileGlob } from "../glob.js";

/**
 * String operators shared by `action` and argument conditions, compiled once
 * per document: globs become matchers, lists become sets.
 */
export type TextOp = "eq" | "in" | "not_in" | "starts_with" | "ends_with" | "matches";
export type TextPredicate = (text: string) => boolean;

const list = (v: string | string[]): string[] => (Array.isArray(v) ? v : [v]);

export function compileTextPredicate(op: TextOp, operand: string | string[]): TextPredicate {
  switch (op) {
    case "eq": {
      const want = operand as string;
      return (t) => t === want;
    }
    case "in": {
      const set = new Set(list(operand));
      return (t) => set.has(t);
    }
    case "not_in": {
      const set = new Set(list(operand));
      return (t) => !set.has(t);
    }
    case "starts_with": {
      const prefixes = list(operand);
      return (t) => prefixes.some((p) => t.startsWith(p));
    }
    case "ends_with": {
      const suffixes = list(operand);
      return (t) => suffixes.some((s) => t.endsWith(s));
    }
    case "matches":
      return compileGlob(operand as string);
  }
}
