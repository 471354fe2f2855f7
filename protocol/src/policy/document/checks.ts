import { decimalProblem } from "../decimal.js";
import { globProblem } from "../glob.js";
import { parsePath } from "../json-path.js";
import { languageBounds as bounds, policyLimits as limits } from "./limits.js";
import type { Approvers, Condition, Rule } from "./schema.js";

/**
 * Checks beyond shape: the 8.3 limits and the language's own rules, one code
 * per problem so a client can point at it. Messages name the limit, never the
 * submitted value (SPEC 7.1).
 */
export interface PolicyIssue {
  path: string;
  code: string;
  message: string;
}

export type Report = (path: string, code: string, message: string) => void;

const RULE_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;
const hasControl = (text: string) =>
  [...text].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);

function checkText(value: unknown, path: string, report: Report): void {
  if (typeof value === "string" && value.length > limits.textChars) {
    report(path, "text_too_long", `text operands are at most ${limits.textChars} characters`);
  }
}

function checkScalar(value: unknown, path: string, report: Report): void {
  checkText(value, path, report);
  if (typeof value === "number" && !Number.isSafeInteger(value)) {
    report(
      path,
      "number_out_of_range",
      "numbers are whole, between -(2^53-1) and 2^53-1; write larger ones as decimal strings",
    );
  }
}

function checkDecimal(value: string, path: string, report: Report): void {
  const problem = decimalProblem(value);
  if (problem === "too_many_digits") {
    report(
      path,
      "decimal_too_long",
      `decimals have at most ${limits.decimalDigits} digits before and after the point`,
    );
  } else if (problem) {
    report(path, "invalid_decimal", 'expected a decimal such as "100" or "-12.50"');
  }
}

function checkAffix(value: string | string[], path: string, report: Report): void {
  if (Array.isArray(value)) {
    if (value.length > limits.affixValues) {
      report(path, "too_many_affixes", `starts_with and ends_with take at most ${limits.affixValues} values`);
    }
    value.forEach((v, i) => checkText(v, `${path}.${i}`, report));
  } else {
    checkText(value, path, report);
  }
}

function checkPattern(pattern: string, path: string, report: Report): void {
  if (pattern.length > limits.textChars) {
    report(path, "text_too_long", `patterns are at most ${limits.textChars} characters`);
    return;
  }
  const problem = globProblem(pattern);
  if (problem) report(path, "invalid_pattern", "not a valid glob pattern");
}

export function checkCondition(c: Condition, path: string, report: Report): void {
  if (c.field === "arguments") {
    const parsed = parsePath(c.path);
    if ("error" in parsed) report(`${path}.path`, "invalid_path", `not a JSON path: ${parsed.error}`);
    else if (parsed.tokens.length > limits.pathTokens) {
      report(`${path}.path`, "path_too_long", `a path has at most ${limits.pathTokens} steps`);
    }
    if (c.path.length > limits.textChars)
      report(`${path}.path`, "text_too_long", `paths are at most ${limits.textChars} characters`);
  }
  switch (c.op) {
    case "matches":
      checkPattern(c.pattern, `${path}.pattern`, report);
      return;
    case "eq":
      if (c.field === "amount") checkDecimal(c.value, `${path}.value`, report);
      else checkScalar(c.value, `${path}.value`, report);
      return;
    case "in":
    case "not_in":
      if (c.value.length > limits.inValues)
        report(`${path}.value`, "too_many_values", `in and not_in take at most ${limits.inValues} values`);
      c.value.forEach((v, i) => checkScalar(v, `${path}.value.${i}`, report));
      return;
    case "starts_with":
    case "ends_with":
      checkAffix(c.value, `${path}.value`, report);
      return;
    case "gt":
    case "gte":
    case "lt":
    case "lte":
      checkDecimal(c.threshold, `${path}.threshold`, report);
      return;
    case "exists":
      return;
  }
}

export function checkApprovers(a: Approvers, path: string, report: Report): void {
  if (new Set(a.roles).size !== a.roles.length)
    report(`${path}.roles`, "duplicate_role", "each role appears once");
  if (a.count !== undefined && a.count > bounds.approverCountMax) {
    report(
      `${path}.count`,
      "approver_count_out_of_range",
      `approver count is 1 to ${bounds.approverCountMax}`,
    );
  }
}

export function checkTtl(ttl: number, path: string, report: Report): void {
  if (ttl < bounds.approvalTtlMin || ttl > bounds.approvalTtlMax) {
    report(
      path,
      "approval_ttl_out_of_range",
      `approval_ttl_seconds is ${bounds.approvalTtlMin} to ${bounds.approvalTtlMax}`,
    );
  }
}

/** Checks of one rule that parsed; `revision` is the declared one (undefined: inferred). */
export function checkRule(rule: Rule, path: string, revision: 1 | 2 | undefined, report: Report): void {
  if (rule.id.length < 1 || rule.id.length > bounds.ruleIdChars || !RULE_ID.test(rule.id)) {
    report(
      `${path}.id`,
      "invalid_rule_id",
      `rule ids are 1-${bounds.ruleIdChars} letters, digits, and _ . : - (not first)`,
    );
  }
  if (rule.description !== undefined) {
    if (
      rule.description.length < 1 ||
      rule.description.length > bounds.descriptionChars ||
      hasControl(rule.description)
    ) {
      report(
        `${path}.description`,
        "invalid_description",
        `a description is 1-${bounds.descriptionChars} characters on one line`,
      );
    }
    if (revision === 1)
      report(`${path}.description`, "revision_required", "description needs language revision 2");
  }
  if (rule.guard !== undefined && revision === 1)
    report(`${path}.guard`, "revision_required", "guard needs language revision 2");
  if (rule.effect === "require_approval") {
    if (!rule.approvers)
      report(`${path}.approvers`, "approvers_required", "a require_approval rule names its approvers");
    else checkApprovers(rule.approvers, `${path}.approvers`, report);
    if (rule.approval_ttl_seconds !== undefined)
      checkTtl(rule.approval_ttl_seconds, `${path}.approval_ttl_seconds`, report);
  } else {
    if (rule.approvers)
      report(`${path}.approvers`, "approvers_not_allowed", "only require_approval rules have approvers");
    if (rule.approval_ttl_seconds !== undefined) {
      report(
        `${path}.approval_ttl_seconds`,
        "approvers_not_allowed",
        "only require_approval rules have an approval lifetime",
      );
    }
  }
  if (rule.tools) {
    if (rule.tools.length > bounds.toolPatternsPerRule) {
      report(
        `${path}.tools`,
        "too_many_tools",
        `a rule lists at most ${bounds.toolPatternsPerRule} tool patterns`,
      );
    }
    rule.tools.forEach((t, i) => checkPattern(t, `${path}.tools.${i}`, report));
  }
  const conditions = rule.conditions ?? [];
  if (conditions.length > bounds.conditionsPerRule) {
    report(
      `${path}.conditions`,
      "too_many_conditions",
      `a rule has at most ${bounds.conditionsPerRule} conditions`,
    );
  }
  const argumentConditions = conditions.filter((c) => c.field === "arguments").length;
  if (argumentConditions > limits.argumentConditionsPerRule) {
    report(
      `${path}.conditions`,
      "too_many_argument_conditions",
      `a rule has at most ${limits.argumentConditionsPerRule} argument conditions`,
    );
  }
  conditions.forEach((c, i) => checkCondition(c, `${path}.conditions.${i}`, report));
}
