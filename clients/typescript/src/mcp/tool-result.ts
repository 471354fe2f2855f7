/**
 * A Gateway `tools/call` result read as a typed outcome (SPEC 4.2): a
 * completed call carries `_meta.service`; a refusal is a result with
 * `isError` true and `structuredContent.service`. Anything else is not a
 * Gateway result and is never taken for success.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { gatewayStatuses, type GatewayStatus } from "@countersign/protocol/errors";
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

const STATUSES = new Set<string>(gatewayStatuses);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

export function readToolResult(result: CallToolResult): ToolCallOutcome {
  const meta = isObj(result._meta) && isObj(result._meta.service) ? result._meta.service : null;
  if (result.isError === true) {
    const service =
      isObj(result.structuredContent) && isObj(result.structuredContent.service)
        ? result.structuredContent.service
        : null;
    if (
      !service ||
      typeof service.status !== "string" ||
      !STATUSES.has(service.status) ||
      typeof service.code !== "string"
    ) {
      throw new ServiceProtocolError(
        "an error result without structuredContent.service is not a Gateway refusal",
      );
    }
    return {
      ok: false,
      result,
      refusal: {
        status: service.status as ToolRefusalStatus,
        code: service.code,
        detail: str(service.detail) ?? "",
        protectedActionId: str(service.protected_action_id) ?? str(meta?.protected_action_id),
        approvalRequestId: str(service.approval_request_id),
        expiresAt: str(service.expires_at),
        retryable: service.retryable === true,
        policy: isObj(service.policy) ? service.policy : null,
        receiptId: str(meta?.receipt_id),
        receiptObjectId: str(meta?.receipt_object_id),
        resultObjectId: str(meta?.result_object_id),
      },
    };
  }
  if (!meta || typeof meta.protected_action_id !== "string") {
    throw new ServiceProtocolError("a result without _meta.service is not a Gateway result");
  }
  return {
    ok: true,
    result,
    service: {
      protectedActionId: meta.protected_action_id,
      receiptId: str(meta.receipt_id),
      receiptObjectId: str(meta.receipt_object_id),
      resultObjectId: str(meta.result_object_id),
      policy: isObj(meta.policy) ? meta.policy : null,
    },
  };
}
