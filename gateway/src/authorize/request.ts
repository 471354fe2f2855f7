import { z } from "zod";

/**
 * The body of POST /v1/authorize (SPEC 4.1). Any other member, a wrong type or
 * a length outside the rules is 400 invalid_request / INVALID_REQUEST; the
 * argument limits of 8.3 are checked afterwards (INVALID_ARGUMENTS).
 */
export const authorizeRequest = z.strictObject({
  tool: z.string().min(1).max(128),
  arguments: z.record(z.string(), z.unknown()).optional(),
  idempotency_key: z.string().min(1).max(200).optional(),
  wait_seconds: z.number().int().min(0).optional(),
});

export type AuthorizeRequest = z.infer<typeof authorizeRequest>;

/** Longest approval wait a call may ask for (SPEC 8.4); larger values are lowered to it. */
export const MAX_WAIT_SECONDS = 60;

/** A one-line reason naming the offending member, never its value. */
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
