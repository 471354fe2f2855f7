import type { z } from "zod";

/**
 * Why a body failed `authorizeRequestSchema` (protocol/src/wire/gateway, SPEC 4.1): a one-line
 * reason naming the offending member, never its value.
 */
export function describeInvalid(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid request";
  if (issue.code === "unrecognized_keys")
    return `unknown member ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}`;
  const where = issue.path.length ? issue.path.join(".") : "body";
  switch (where) {
    case "tool":
      return "tool must be a string of 1 to 128 characters";
    case "arguments":
      return "arguments must be a JSON object";
    case "idempotency_key":
      return "idempotency_key must be a string of 1 to 200 characters";
    case "wait_seconds":
      return "wait_seconds must be a whole number of seconds, 0 or more";
    default:
      return where === "body" ? "the body must be a JSON object" : `${where} is invalid`;
  }
}
