/**
 * A Gateway `tools/call` result read as a typed outcome (SPEC 4.2): a
 * completed call carries `_meta.service`; a refusal is a result with
 * `isError` true and `structuredContent.service`. Anything else is not a
 * Gateway result and is never taken for success.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { GatewayStatus } from "@countersign/protocol/errors";
import { refusalServiceSchema, resultServiceMetaSchema } from "@countersign/protocol/wire";
import { ServiceProtocolError } from "../authorize/errors.js";

/** The refusal statuses of the Gateway (SPEC 7.3), as the protocol package lists them. */
export type ToolRefusalStatus = GatewayStatus;

export interface CompletedCall {
  protectedActionId: string;
  /** Null when the Gateway could not read the receipt back; the call did run. */
  receiptId: string | null;
  receiptObjectId: string | null;
  resultObjectId: string | null;
  /** Only for a call decided under an observe window. */
  policy: Record<string, unknown> | null;
}

export interface ToolRefusal {
  status: ToolRefusalStatus;
  code: string;
  detail: string;
  protectedActionId: string | null;
  approvalRequestId: string | null;
  expiresAt: string | null;
  retryable: boolean;
  policy: Record<string, unknown> | null;
  /** For refusals that ended with a receipt (rejected, cancelled, failed). */
  receiptId: string | null;
  receiptObjectId: string | null;
  resultObjectId: string | null;
}

export type ToolCallOutcome =
  | { ok: true; result: CallToolResult; service: CompletedCall }
  | { ok: false; result: CallToolResult; refusal: ToolRefusal };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Reads a result by the Gateway's wire (protocol/src/wire/gateway/mcp.ts): a refusal's
 * `structuredContent.service` and `_meta.service` are validated by their schemas.
 */
export function readToolResult(result: CallToolResult): ToolCallOutcome {
  const rawMeta = isObj(result._meta) ? result._meta.service : undefined;
  if (result.isError === true) {
    const parsed = refusalServiceSchema.safeParse(
      isObj(result.structuredContent) ? result.structuredContent.service : undefined,
    );
    if (!parsed.success) {
      throw new ServiceProtocolError(
        "an error result without structuredContent.service is not a Gateway refusal",
      );
    }
    const service = parsed.data;
    // A refusal's receipt ids (rejected, cancelled, failed) are in `_meta.service` when it has one.
    const meta = resultServiceMetaSchema.safeParse(rawMeta).data;
    return {
      ok: false,
      result,
      refusal: {
        status: service.status,
        code: service.code,
        detail: service.detail,
        protectedActionId: service.protected_action_id ?? meta?.protected_action_id ?? null,
        approvalRequestId: service.approval_request_id ?? null,
        expiresAt: service.expires_at ?? null,
        retryable: service.retryable === true,
        policy: service.policy ?? null,
        receiptId: meta?.receipt_id ?? null,
        receiptObjectId: meta?.receipt_object_id ?? null,
        resultObjectId: meta?.result_object_id ?? null,
      },
    };
  }
  const meta = resultServiceMetaSchema.safeParse(rawMeta);
  if (!meta.success) {
    throw new ServiceProtocolError("a result without _meta.service is not a Gateway result");
  }
  return {
    ok: true,
    result,
    service: {
      protectedActionId: meta.data.protected_action_id,
      receiptId: meta.data.receipt_id ?? null,
      receiptObjectId: meta.data.receipt_object_id ?? null,
      resultObjectId: meta.data.result_object_id ?? null,
      policy: meta.data.policy ?? null,
    },
  };
}
