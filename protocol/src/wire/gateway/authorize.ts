import { z } from "zod";
import { gatewayCodes, type GatewayCode } from "../../errors/gateway-codes.js";
import { agentExplanationSchema, observePolicySchema } from "./policy.js";
import { argumentsDigestString, gatewayInstant, objectIdString } from "./fields.js";

/**
 * The wire of POST {gateway_url}/v1/authorize (SPEC 4.1, docs/gateway.md "Answers"): the request
 * body and every answer. The Gateway parses the request with these schemas and types its answers
 * by them; the TypeScript client validates answers with them; the OpenAPI document
 * (docs/openapi/gateway.json) and the Python client's JSON Schemas are generated from them.
 *
 * Answers are plain (non-strict) objects: a client reading them ignores a member a later Gateway
 * adds, while the generated JSON Schema (output mode) lists every member the Gateway sends today.
 */

/** Longest approval wait a call may ask for (SPEC 8.4); larger values are lowered to it. */
export const MAX_WAIT_SECONDS = 60;

/** The body of POST /v1/authorize. Any other member, a wrong type or length: 400 INVALID_REQUEST. */
export const authorizeRequestSchema = z.strictObject({
  tool: z.string().min(1).max(128).describe("exposed name of a decision-only tool"),
  arguments: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      "the exact arguments the caller will use (default {}); whole numbers only, at most 224 KiB as canonical JSON (SPEC 8.3)",
    ),
  idempotency_key: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("the same key returns the same answer instead of a new decision"),
  wait_seconds: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      `seconds the Gateway may hold the request while a person decides; lowered to ${MAX_WAIT_SECONDS}`,
    ),
});
export type AuthorizeRequestBody = z.infer<typeof authorizeRequestSchema>;

/** 200, `allowed` true: permission to perform the call once, exactly as authorized, before `expires_at`. */
export const authorizationSchema = z.object({
  allowed: z.literal(true),
  status: z.literal("authorized"),
  decision: z.literal("allow"),
  execution: z.literal("caller"),
  protected_action_id: z.uuid(),
  approval_request_id: z.uuid().nullable(),
  expires_at: gatewayInstant,
  task_object_id: objectIdString,
  proposal_object_id: objectIdString,
  receipt_object_id: objectIdString,
  receipt_id: z.uuid(),
  arguments_digest: argumentsDigestString,
  policy: observePolicySchema.nullable(),
  note: z.string(),
});
export type Authorization = z.infer<typeof authorizationSchema>;

/** The statuses an answer of /v1/authorize with `allowed` false carries (SPEC 4.1, 7.3). */
export const authorizeRefusalStatuses = [
  "approval_pending",
  "denied",
  "rejected",
  "expired",
  "cancelled",
  "plan_limit",
  "invalid_request",
  "unauthorized",
  "unavailable",
] as const;

/** Catalog codes whose status /v1/authorize answers (every code but replay's and upstream_error's). */
export type AuthorizeRefusalCode = {
  [C in GatewayCode]: (typeof gatewayCodes)[C] extends (typeof authorizeRefusalStatuses)[number] ? C : never;
}[GatewayCode];

/**
 * Every answer with `allowed` false. `code` is a string: a denial may carry a workflow engine's own
 * code (SPEC 7.3, ENGINE_REFUSED "or the workflow engine's own code"); the HTTP-level answers below
 * narrow it to the catalog's codes.
 */
export const authorizeRefusalSchema = z.object({
  allowed: z.literal(false),
  status: z.enum(authorizeRefusalStatuses),
  code: z.string(),
  detail: z.string(),
  /** Recorded decisions only. */
  protected_action_id: z.uuid().optional(),
  approval_request_id: z.uuid().nullable().optional(),
  /** Of the approval request while pending; of the authorization for AUTHORIZATION_EXPIRED. */
  expires_at: gatewayInstant.nullable().optional(),
  arguments_digest: argumentsDigestString.optional(),
  task_object_id: objectIdString.nullable().optional(),
  proposal_object_id: objectIdString.nullable().optional(),
  receipt_object_id: objectIdString.nullable().optional(),
  receipt_id: z.uuid().nullable().optional(),
  retryable: z.boolean().optional(),
  /** The agent explanation (SPEC 2.9) of a recorded refusal at disclosure rule or conditions, with `why`. */
  policy: agentExplanationSchema.optional(),
  why: z.string().optional(),
  retry_after_seconds: z.number().int().min(1).optional(),
});
export type AuthorizeRefusal = z.infer<typeof authorizeRefusalSchema>;

/** Whatever POST /v1/authorize answers, read by a client before it looks at the HTTP status. */
export const authorizeAnswerSchema = z.union([authorizationSchema, authorizeRefusalSchema]);
export type AuthorizeAnswerBody = z.infer<typeof authorizeAnswerSchema>;

const codesOf = (status: string) =>
  (Object.keys(gatewayCodes) as GatewayCode[]).filter((c) => gatewayCodes[c] === status) as [
    GatewayCode,
    ...GatewayCode[],
  ];

/** 200 with `allowed` false: a decision (recorded, or a plan limit or re-authorization refusal that records nothing). */
export const decisionRefusalSchema = authorizeRefusalSchema.extend({
  status: z.enum(["approval_pending", "denied", "rejected", "expired", "cancelled", "plan_limit"]),
});

/** 400 (and 404, 405, 413, 415): the request cannot be processed as sent; nothing recorded. */
export const invalidRequestAnswerSchema = authorizeRefusalSchema
  .pick({ allowed: true, detail: true })
  .extend({
    status: z.literal("invalid_request"),
    code: z.enum(codesOf("invalid_request")),
  });

/** 401: no valid gateway key, for any reason of SPEC 5.4 (one answer for all). */
export const unauthorizedAnswerSchema = authorizeRefusalSchema.pick({ allowed: true, detail: true }).extend({
  status: z.literal("unauthorized"),
  code: z.literal("UNAUTHORIZED"),
});

/** 503 (`Retry-After: 5`): the Gateway cannot decide now; nothing recorded; retry the same call. */
export const unavailableAnswerSchema = authorizeRefusalSchema.pick({ allowed: true, detail: true }).extend({
  status: z.literal("unavailable"),
  code: z.enum(codesOf("unavailable")),
  retryable: z.literal(true),
});

/** 429 (`Retry-After`): the key's token bucket is empty; an HTTP-level answer, not a decision. */
export const rateLimitedAnswerSchema = authorizeRefusalSchema.pick({ allowed: true, detail: true }).extend({
  status: z.literal("unavailable"),
  code: z.literal("RATE_LIMITED"),
  retryable: z.literal(true),
  retry_after_seconds: z.number().int().min(1),
});
export type RateLimitedAnswer = z.infer<typeof rateLimitedAnswerSchema>;
