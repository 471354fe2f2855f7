/**
 * Validation issues as a person reads them. The Cloud API's VALIDATION_FAILED answer and the
 * protocol's own checks (examples, policies) give, per issue, a `path`, a zod `code` and zod's text
 * ("Too small: expected string to have >=12 characters"). A person needs the field, in the words the
 * form uses, and what to do: "The password must be at least 12 characters long. Correct it and try
 * again." The numbers come from zod's text, whose form is stable for each code.
 */
export interface Issue {
  path: string;
  code: string;
  message: string;
}

const isIssue = (v: unknown): v is Issue =>
  typeof v === "object" &&
  v !== null &&
  "path" in v &&
  typeof v.path === "string" &&
  "code" in v &&
  typeof v.code === "string" &&
  "message" in v &&
  typeof v.message === "string";

/** The issues of an error's details (`{issues: [...]}`), the well-formed ones only. */
export function issuesIn(details: Record<string, unknown> | undefined): Issue[] {
  const list = details?.issues;
  return Array.isArray(list) ? list.filter(isIssue) : [];
}

/** The fields people type, by the last segment of an issue's path, in the words of the forms. */
const fieldNames: Record<string, string> = {
  password: "the password",
  new_password: "the new password",
  current_password: "the current password",
  email: "the e-mail address",
  new_email: "the new e-mail address",
  name: "the name",
  url: "the URL",
  id: "the id",
  label: "the label",
  tool: "the tool",
  action: "the action",
  amount: "the amount",
  currency: "the currency",
  expected_outcome: "the expected outcome",
  expected_rule: "the expected rule",
  permissions: "the permissions",
  reason: "the reason",
  description: "the description",
};

export function fieldName(path: string): string {
  const last = path
    .split(".")
    .filter((p) => !/^\d+$/.test(p))
    .at(-1);
  if (!last) return "the value";
  return fieldNames[last] ?? `the field ${last.replace(/_/g, " ")}`;
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** What is wrong with the field, as the rest of a sentence starting with its name. */
function predicate(issue: Issue): string {
  const bound = /expected (\w+) to (?:have|be) ([<>]=?)(\d+)/.exec(issue.message);
  if ((issue.code === "too_small" || issue.code === "too_big") && bound) {
    const [, kind, , n] = bound;
    const atLeast = issue.code === "too_small";
    if (kind === "string") {
      if (atLeast && n === "1") return "is empty: fill it in";
      return atLeast ? `must be at least ${n} characters long` : `must be at most ${n} characters long`;
    }
    if (kind === "array" || kind === "set")
      return atLeast ? `needs at least ${n} entries` : `takes at most ${n} entries`;
    return atLeast ? `must be at least ${n}` : `must be at most ${n}`;
  }
  switch (issue.code) {
    case "invalid_format":
      return /email/i.test(issue.message)
        ? "is not a valid e-mail address"
        : /url/i.test(issue.message)
          ? "is not a valid URL"
          : "is not in the expected form";
    case "invalid_type":
      return /received undefined/.test(issue.message)
        ? "is missing: fill it in"
        : "is not the expected kind of value";
    case "invalid_value":
    case "invalid_enum_value": {
      const options = /expected one of (.+)$/.exec(issue.message)?.[1];
      return options ? `must be one of ${options.replace(/\|/g, ", ")}` : "is not one of the allowed values";
    }
    case "unknown_member":
    case "unrecognized_keys":
      return "is not expected here";
    default:
      // A check with its own words (a custom refinement, the text rule): they are the sentence.
      return /^(Invalid|Too|Expected)/.test(issue.message)
        ? "is not valid"
        : `is not valid: ${issue.message}`;
  }
}

/** One issue as one sentence that says what to do. */
export function issueSentence(issue: Issue, subject = capital(fieldName(issue.path))): string {
  return `${subject} ${predicate(issue)}.`;
}
