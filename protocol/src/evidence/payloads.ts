import { z } from "zod";
import { decimalSchema, digestSchema, kidSchema, label, objectIdSchema, timestampSchema } from "./fields.js";

/**
 * What each signed object type carries in its `payload` (docs/evidence.md,
 * "Object types"). Strict objects: a member this version does not define is
 * refused rather than signed without meaning.
 */

export const amountSchema = z.strictObject({
  value: decimalSchema,
  currency: z.string().regex(/^[A-Z]{3}$/),
});

/** The exact call every step after the TASK restates, so no step can approve or run another call. */
export const callSchema = z.strictObject({
  tool: label(128),
  action: label(),
  arguments_digest: digestSchema,
  amount: amountSchema.nullable(),
});

export const taskPayloadSchema = z.strictObject({
  protected_action_id: label(64),
  /** gateway: the Gateway runs the call; caller: decision-only (SPEC 1.2). */
  execution: z.enum(["gateway", "caller"]),
  agent: z.strictObject({ id: label(64), name: label() }),
  ...callSchema.shape,
  environment: z.enum(["live", "test"]),
  policy: z.strictObject({
    policy_id: label(64),
    version_id: label(64),
    version: z.int().min(1),
    digest: digestSchema,
  }),
  idempotency_key: label(255).nullable(),
});

export const proposalPayloadSchema = z.strictObject({
  call: callSchema,
  policy_effect: z.enum(["allow", "require_approval", "deny"]),
  rule_id: label().nullable(),
  enforcement: z.enum(["enforce", "observe"]),
  approval_request: z
    .strictObject({
      id: label(64),
      expires_at: timestampSchema,
      roles: z.array(label()).max(32),
      approver_count: z.int().min(1).max(32),
    })
    .nullable(),
  /** Until when an allowed call may still be executed (SPEC 2.1, default approval lifetime). */
  expires_at: timestampSchema,
});

export const approvalPayloadSchema = z.strictObject({
  approval_request_id: label(64),
  call: callSchema,
  expires_at: timestampSchema,
});

export const rejectionPayloadSchema = z.strictObject({
  approval_request_id: label(64),
  call: callSchema,
  reason: z.string().max(1000).nullable(),
});

export const cancellationPayloadSchema = z.strictObject({ reason: z.string().max(1000).nullable() });

export const executionPayloadSchema = z.strictObject({
  call: callSchema,
  upstream_tool: label(128).nullable(),
  /** The MCP server identity the call went to, when it has one (SPEC 2.3). */
  server_kid: kidSchema.nullable(),
});

export const resultPayloadSchema = z.strictObject({
  status: z.enum(["succeeded", "failed"]),
  /** Digest of the result content the Gateway received, never of the upstream system's state. */
  result_digest: digestSchema,
  error_code: label(64).nullable(),
});

/** Actions an agent may take: exact names, a `prefix.*` family, or `*`. */
export const permissionSchema = z
  .string()
  .regex(/^(\*|[A-Za-z0-9_:\-/]+(\.[A-Za-z0-9_:\-/]+)*(\.\*)?)$/, "expected an action name, prefix.* or *");

export const delegationPayloadSchema = z.strictObject({
  organization_id: label(),
  agent_id: label(64),
  permissions: z.array(permissionSchema).min(1).max(256),
  expires_at: timestampSchema,
});

export const revocationPayloadSchema = z.strictObject({ delegation: objectIdSchema });

export const attestationPayloadSchema = z.strictObject({
  subject: objectIdSchema,
  claim: label(),
  statement: z.json().nullable(),
});
