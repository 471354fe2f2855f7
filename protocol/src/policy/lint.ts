import canonicalize from "canonicalize";
import { argumentValueHolds } from "./conditions/arguments.js";
import { everything, isEmpty, narrow, within, type Interval } from "./conditions/interval.js";
import { compileTextPredicate } from "./conditions/text.js";
import { toScaled } from "./decimal.js";
import type { PolicyIssue } from "./document/checks.js";
import { policyLimits } from "./document/limits.js";
import type {
  ActionCondition,
  AmountCondition,
  ArgumentCondition,
  Condition,
  PolicyDocument,
  Rule,
} from "./document/schema.js";
import { restriction } from "./evaluate.js";
import { compileGlob, hasGlobSyntax } from "./glob.js";
import { parsePath, type PathToken } from "./json-path.js";

/**
 * Lint: warnings about a valid document that probably does not say what its
 * author meant. Never blocks saving. The reasoning is conservative: a warning
 * is only given when it is certain (a rule reported as shadowed really can
 * never decide), so silence does not prove the absence of a problem.
 */

/** What lint may know about the organization's tools (optional; more warnings with it). */
export interface LintTool {
  /** Exposed name. */
  tool: string;
  action: string;
  /** Whether the tool maps an amount (SPEC 2.3). */
  amount?: boolean;
  /** The tool's input schema, to find argument paths a call can never carry. */
  input_schema?: unknown;
}

export interface LintContext {
  tools?: readonly LintTool[];
}

export interface LintResult {
  /** At most 100 (SPEC 8.3), in document order. */
  warnings: PolicyIssue[];
  /** How many were found, including those beyond the first 100. */
  total: number;
}

const same = (a: unknown, b: unknown) => canonicalize(a) === canonicalize(b);
const numericOps = new Set(["gt", "gte", "lt", "lte"]);

function scalarsOf(c: ActionCondition | ArgumentCondition): readonly unknown[] | undefined {
  if (c.op === "eq") return [c.value];
  if (c.op === "in") return c.value;
  return undefined;
}

function actionHolds(c: ActionCondition, v: string): boolean {
  return compileTextPredicate(c.op, c.op === "matches" ? c.pattern : c.value)(v);
}

/** The interval admitted by the comparisons among `conds` (amounts of one currency, or one argument path). */
function intervalOf(conds: readonly (AmountCondition | ArgumentCondition)[]): Interval {
  let iv = everything();
  for (const c of conds) {
    if (c.op === "gt" || c.op === "gte" || c.op === "lt" || c.op === "lte")
      iv = narrow(iv, c.op, toScaled(c.threshold)!);
    else if (c.op === "eq" && c.field === "amount") iv = narrow(iv, "eq", toScaled(c.value)!);
  }
  return iv;
}

function pathKey(c: ArgumentCondition): string {
  const p = parsePath(c.path);
  return "error" in p ? c.path : JSON.stringify(p.tokens);
}

function groupArguments(conds: readonly Condition[]): Map<string, ArgumentCondition[]> {
  const groups = new Map<string, ArgumentCondition[]>();
  for (const c of conds) {
    if (c.field !== "arguments") continue;
    const k = pathKey(c);
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  return groups;
}

/** Why a rule's own conditions contradict each other, if they do. */
function contradiction(rule: Rule): string | undefined {
  const conds = rule.conditions ?? [];
  const actions = conds.filter((c): c is ActionCondition => c.field === "action");
  for (const c of actions) {
    const values = scalarsOf(c) as string[] | undefined;
    if (values && !values.some((v) => actions.every((o) => actionHolds(o, v))))
      return "its action conditions contradict each other";
  }
  const amounts = conds.filter((c): c is AmountCondition => c.field === "amount");
  if (new Set(amounts.map((c) => c.currency)).size > 1) return "it asks for amounts in two currencies";
  if (isEmpty(intervalOf(amounts))) return "no amount satisfies its amount conditions";
  for (const group of groupArguments(conds).values()) {
    const path = group[0]!.path;
    const absent = group.some((c) => c.op === "exists" && c.value === false);
    if (absent && group.some((c) => !(c.op === "exists" && c.value === false)))
      return `it requires ${path} to be both absent and present`;
    for (const c of group) {
      const values = scalarsOf(c);
      if (values && !values.some((v) => group.every((o) => argumentValueHolds(o, v))))
        return `its conditions on ${path} contradict each other`;
    }
    if (group.some((c) => numericOps.has(c.op)) && isEmpty(intervalOf(group)))
      return `no number satisfies its conditions on ${path}`;
  }
  return undefined;
}

/** Whether every call matching R's conditions also matches condition c of another rule. */
function implied(c: Condition, r: readonly Condition[]): boolean {
  if (r.some((o) => same(o, c))) return true;
  if (c.field === "action") {
    if (c.op === "matches" && c.pattern === "**") return true;
    return r.some(
      (o) =>
        o.field === "action" &&
        (scalarsOf(o) as string[] | undefined)?.every((v) => actionHolds(c, v)) === true,
    );
  }
  if (c.field === "amount") {
    const mine = r.filter((o): o is AmountCondition => o.field === "amount" && o.currency === c.currency);
    if (mine.length === 0) return false;
    return within(intervalOf(mine), c.op, toScaled(c.op === "eq" ? c.value : c.threshold)!);
  }
  const key = pathKey(c);
  const group = r.filter((o): o is ArgumentCondition => o.field === "arguments" && pathKey(o) === key);
  if (c.op === "exists" && c.value !== false)
    return group.some((o) => !(o.op === "exists" && o.value === false));
  if (group.some((o) => scalarsOf(o)?.every((v) => argumentValueHolds(c, v)) === true)) return true;
  if (numericOps.has(c.op) && group.some((o) => numericOps.has(o.op))) {
    return within(intervalOf(group), c.op as "gt", toScaled((c as { threshold: string }).threshold)!);
  }
  return false;
}

/** Whether S matches every call R matches (so S wins wherever R would, when S comes first). */
function covers(s: Rule, r: Rule): boolean {
  if (s.tools) {
    if (!r.tools) return s.tools.includes("**");
    const matchers = s.tools.map((q) => ({ q, m: compileGlob(q) }));
    const ok = r.tools.every((p) =>
      matchers.some(({ q, m }) => q === p || q === "**" || (!hasGlobSyntax(p) && m(p))),
    );
    if (!ok) return false;
  }
  const rc = r.conditions ?? [];
  return (s.conditions ?? []).every((c) => implied(c, rc));
}

function toolsOf(rule: Rule, tools: readonly LintTool[]): LintTool[] {
  const matchers = rule.tools?.map(compileGlob);
  const actions = (rule.conditions ?? []).filter((c): c is ActionCondition => c.field === "action");
  return tools.filter(
    (t) => (!matchers || matchers.some((m) => m(t.tool))) && actions.every((c) => actionHolds(c, t.action)),
  );
}

/** Whether a schema could admit a value at the path; unknown shapes admit everything. */
function schemaAdmits(schema: unknown, tokens: readonly PathToken[]): boolean {
  let s = schema;
  for (const t of tokens) {
    if (typeof s !== "object" || s === null) return true;
    const o = s as Record<string, unknown>;
    if (typeof t === "number") {
      if (typeof o.type === "string" && o.type !== "array") return false;
      s = o.items;
      continue;
    }
    if (typeof o.type === "string" && o.type !== "object") return false;
    const props = o.properties as Record<string, unknown> | undefined;
    if (props && Object.hasOwn(props, t)) s = props[t];
    else if (o.additionalProperties === false) return false;
    else s = o.additionalProperties;
  }
  return true;
}

function hasUpperBound(conds: readonly Condition[]): boolean {
  return conds.some((c) => c.field === "amount" && (c.op === "lt" || c.op === "lte" || c.op === "eq"));
}

export function lintPolicy(doc: PolicyDocument, context?: LintContext): LintResult {
  const warnings: PolicyIssue[] = [];
  const warn = (path: string, code: string, message: string) => warnings.push({ path, code, message });
  const tools = context?.tools;
  doc.rules.forEach((rule, i) => {
    const path = `rules.${i}`;
    const conds = rule.conditions ?? [];
    const why = contradiction(rule);
    if (why) warn(path, "never_matches", `rule can never match: ${why}`);
    const known = tools ? toolsOf(rule, tools) : undefined;
    if (!why && known && known.length === 0)
      warn(path, "never_matches", "rule can never match: no known tool has its tool names and action");
    if (!why) {
      for (let j = 0; j < doc.rules.length; j++) {
        const s = doc.rules[j]!;
        const first = restriction[s.effect] > restriction[rule.effect] || (s.effect === rule.effect && j < i);
        if (j !== i && first && !contradiction(s) && covers(s, rule)) {
          warn(
            path,
            "shadowed",
            `rule can never decide: rules.${j} matches every call it matches and takes precedence`,
          );
          break;
        }
      }
    }
    conds.forEach((c, k) => {
      if (c.field !== "arguments") return;
      const cpath = `${path}.conditions.${k}`;
      const parsed = parsePath(c.path);
      if ("error" in parsed) return;
      // Arguments are nested at most 28 levels, the object itself being level 1.
      if (parsed.tokens.length >= policyLimits.pathTokens) {
        warn(
          cpath,
          "invisible_field",
          "arguments are never nested this deep, so this path never holds a value",
        );
      } else if (
        known &&
        known.length > 0 &&
        !known.some((t) => schemaAdmits(t.input_schema, parsed.tokens))
      ) {
        warn(cpath, "invisible_field", "no input schema of the rule's tools has this path");
      }
      const values = scalarsOf(c) ?? [];
      if (values.some((v) => typeof v === "string" && v.includes("\u0000"))) {
        warn(cpath, "invisible_field", "arguments never contain U+0000, so this value is never seen");
      }
    });
    if (
      known &&
      known.length > 0 &&
      conds.some((c) => c.field === "amount") &&
      known.every((t) => !t.amount)
    ) {
      warn(path, "invisible_field", "amount conditions on tools that map no amount never hold");
    }
    if (rule.effect === "allow") {
      const amounts = conds.filter((c) => c.field === "amount");
      if (amounts.length > 0 && !hasUpperBound(conds)) {
        warn(path, "unbounded_amount", "rule allows amounts without an upper bound");
      } else if (amounts.length === 0 && known?.some((t) => t.amount)) {
        warn(path, "unbounded_amount", "rule allows tools that carry amounts without any amount bound");
      }
      if (rule.guard === true)
        warn(`${path}.guard`, "guard_without_effect", "a guard only matters on rules that restrict");
    }
  });
  if ((doc.default_effect ?? "deny") === "allow" && tools?.some((t) => t.amount)) {
    warn("default_effect", "unbounded_amount", "the default allows calls with any amount");
  }
  return { warnings: warnings.slice(0, policyLimits.lintWarnings), total: warnings.length };
}
