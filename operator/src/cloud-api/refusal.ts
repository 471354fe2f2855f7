// How a reconciler tells Cloud API answers apart: a 404 (the object is gone there), and a refusal
// only a change of the spec (or a person) can fix, shown in status and not retried hot; everything
// else (5xx, 429, network) is thrown so the work queue retries with backoff.
import { issuesDetailsSchema } from "@countersign/protocol/wire";
import { CloudApiError } from "./client.js";

export const isNotFound = (error: unknown): error is CloudApiError =>
  error instanceof CloudApiError && error.status === 404;

export const isRefusal = (error: unknown): error is CloudApiError =>
  error instanceof CloudApiError && error.status >= 400 && error.status < 500 && error.status !== 429;

/** At most this many issues are listed in a condition message; the rest are counted. */
const MAX_ISSUES = 20;

/**
 * "CODE: message", then the answer's `details.issues` as "path: message (code)". An issue names
 * where and why, never the submitted value (the Cloud API's rule), so it is safe in status.
 */
export function describeRefusal(error: CloudApiError): string {
  const details = issuesDetailsSchema.safeParse(error.details);
  const issues = details.success ? details.data.issues : [];
  const listed = issues
    .slice(0, MAX_ISSUES)
    .map((i) => `${i.path || "(document)"}: ${i.message} (${i.code})`);
  if (issues.length > MAX_ISSUES) listed.push(`${issues.length - MAX_ISSUES} more`);
  return `${error.code}: ${error.message}${listed.length ? `; ${listed.join("; ")}` : ""}`;
}

/** The message of a refusal shown in a condition. */
export const refusedMessage = (error: CloudApiError, what = "") =>
  `the Cloud API refused${what ? ` ${what}` : ""}: ${describeRefusal(error)}`;
