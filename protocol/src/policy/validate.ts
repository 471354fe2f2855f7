import type { z } from "zod";
import { ServiceError } from "../errors/index.js";
import { canonicalSize, policyDigest } from "./digest.js";
import {
  checkApprovers,
  checkCondition,
  checkRule,
  checkTtl,
  type PolicyIssue,
  type Report,
} from "./document/checks.js";
import { policyLimits as limits } from "./document/limits.js";
import {
  conditionSchema,
  documentSchema,
  languageRevision,
  ruleSchema,
  type LanguageRevision,
  type PolicyDocument,
} from "./document/schema.js";
import { lintPolicy, type LintContext, type LintResult } from "./lint.js";

export type { PolicyIssue } from "./document/checks.js";

export type ValidationResult =
  | { ok: true; document: PolicyDocument; revision: LanguageRevision; digest: string; lint: LintResult }
  | { ok: false; issues: PolicyIssue[] };

function zodIssues(error: z.ZodError, prefix: string[] = []): PolicyIssue[] {
  return error.issues.flatMap((i) => {
    const path = [...prefix, ...i.path.map(String)];
    if (i.code === "unrecognized_keys") {
      return i.keys.map((k) => ({
        path: [...path, k].join("."),
        code: "unknown_member",
        message: "unknown member",
      }));
    }
    return [{ path: path.join("."), code: i.code, message: i.message }];
  });
}

const asRecord = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/**
 * The checks that need the whole document, run on the raw input so they are
 * reported even when some other part is malformed: every problem at once.
 */
function checkDocument(raw: Record<string, unknown>, report: Report): void {
  const declared = raw.revision === 1 || raw.revision === 2 ? raw.revision : undefined;
  const rules = Array.isArray(raw.rules) ? raw.rules : [];
  const seen = new Map<string, number>();
  let argumentConditions = 0;
  rules.forEach((r, i) => {
    const path = `rules.${i}`;
    const parsed = ruleSchema.safeParse(r);
    if (parsed.success) checkRule(parsed.data, path, declared, report);
    const rule = asRecord(r);
    if (!rule) return;
    if (typeof rule.id === "string") {
      const first = seen.get(rule.id);
      if (first !== undefined)
        report(`${path}.id`, "duplicate_rule_id", `rule id already used by rules.${first}`);
      else seen.set(rule.id, i);
    }
    const conditions = Array.isArray(rule.conditions) ? rule.conditions : [];
    for (const [j, c] of conditions.entries()) {
      if (asRecord(c)?.field === "arguments") argumentConditions++;
      // A rule that failed its shape still gets its well-formed conditions checked.
      if (!parsed.success) {
        const one = conditionSchema.safeParse(c);
        if (one.success) checkCondition(one.data, `${path}.conditions.${j}`, report);
      }
    }
  });
  if (argumentConditions > limits.argumentConditionsPerDocument) {
    report(
      "rules",
      "too_many_argument_conditions_in_document",
      `a document has at most ${limits.argumentConditionsPerDocument} argument conditions`,
    );
  }
  const defaultEffect = raw.default_effect ?? "deny";
  if (raw.default_approvers !== undefined || raw.default_approval_ttl_seconds !== undefined) {
    if (defaultEffect !== "require_approval") {
      report(
        "default_approvers",
        "approvers_not_allowed",
        "default approvers and lifetime need default_effect require_approval",
      );
    }
  }
  const approvers = documentSchema.shape.default_approvers.safeParse(raw.default_approvers);
  if (approvers.success && approvers.data) checkApprovers(approvers.data, "default_approvers", report);
  if (typeof raw.default_approval_ttl_seconds === "number") {
    checkTtl(raw.default_approval_ttl_seconds, "default_approval_ttl_seconds", report);
  }
}

/** Shape, limits and language rules; no lint. */
function check(
  input: unknown,
): { ok: true; document: PolicyDocument } | { ok: false; issues: PolicyIssue[] } {
  // Size first: nothing else is worth doing on an oversized document.
  if (canonicalSize(input) > limits.documentBytes) {
    return {
      ok: false,
      issues: [
        {
          path: "",
          code: "document_too_large",
          message: `a policy document is at most ${limits.documentBytes / 1024} KiB as canonical JSON`,
        },
      ],
    };
  }
  const issues: PolicyIssue[] = [];
  const report: Report = (path, code, message) => issues.push({ path, code, message });
  const parsed = documentSchema.safeParse(input);
  if (!parsed.success) issues.push(...zodIssues(parsed.error));
  const raw = asRecord(input);
  if (raw) checkDocument(raw, report);
  if (!parsed.success || issues.length > 0) return { ok: false, issues };
  return { ok: true, document: parsed.data };
}

/**
 * Validates a submitted document: every problem with its path and code, or
 * the parsed document with its revision, digest and lint warnings.
 */
export function validatePolicy(input: unknown, context?: LintContext): ValidationResult {
  const result = check(input);
  if (!result.ok) return result;
  const document = result.document;
  return {
    ok: true,
    document,
    revision: languageRevision(document),
    digest: policyDigest(document),
    lint: lintPolicy(document, context),
  };
}

/** The Cloud API's refusal: 422 POLICY_INVALID with `details.issues`. */
export function policyInvalidError(issues: PolicyIssue[]): ServiceError {
  return new ServiceError("POLICY_INVALID", "the policy document is invalid", { issues });
}

/** The parsed document, or throws POLICY_INVALID; skips lint (for loading stored versions). */
export function parsePolicy(input: unknown): PolicyDocument {
  const result = check(input);
  if (!result.ok) throw policyInvalidError(result.issues);
  return result.document;
}
