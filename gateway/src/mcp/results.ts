import type { ActionView } from "@countersign/core/actions";
import { observePolicyOf, recordedRefusal } from "@countersign/core/decision";
import {
  gatewayCodes,
  retryableGatewayCodes,
  statusOf,
  type GatewayCode,
} from "@countersign/protocol/errors";
import {
  agentExplanationSchema,
  observePolicySchema,
  type RefusalContent,
  type ResultServiceMeta,
} from "@countersign/protocol/wire";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

type Body = Record<string, unknown>;

/**
 * A refusal as a normal tool result (SPEC 4.2): `isError` true,
 * `structuredContent.service` with status, code, detail and whatever applies;
 * for recorded decisions at disclosure rule or conditions the agent
 * explanation under `policy` and a second text item starting `Why:` (2.9).
 */
export function refusalResult(
  code: GatewayCode,
  detail: string,
  extra: Body = {},
  explanation: ({ message?: string } & Body) | null = null,
  meta?: ResultServiceMeta,
): CallToolResult {
  // Typed by the refusal's schema (protocol/src/wire/gateway/mcp.ts), which tools/list's output schemas admit.
  const service: RefusalContent["service"] = { status: statusOf(code), code, detail, ...extra };
  if (retryableGatewayCodes.has(code)) service.retryable = true;
  const content: CallToolResult["content"] = [{ type: "text", text: `${code}: ${detail}` }];
  if (explanation) {
    // The stored explanation (SPEC 2.9) as the refusal's schema promises it to MCP clients.
    service.policy = agentExplanationSchema.parse(explanation);
    content.push({ type: "text", text: `Why: ${service.policy.message}` });
  }
  return {
    content,
    isError: true,
    structuredContent: { service },
    ...(meta ? { _meta: { service: meta } } : {}),
  };
}

/** The refusal of a recorded decision, exactly as stored (the same decision returned again carries the same refusal). */
export function recordedRefusalResult(view: ActionView): CallToolResult {
  const r = recordedRefusal(view);
  const receipt = view.receipt
    ? {
        protected_action_id: view.id,
        receipt_id: view.receipt.id,
        receipt_object_id: view.receipt.receiptObjectId,
      }
    : undefined;
  return refusalResult(
    r.code,
    r.detail,
    { protected_action_id: view.id, ...r.extra },
    r.explanation,
    receipt,
  );
}

export interface CompletedCall {
  view: ActionView;
  status: "succeeded" | "failed";
  errorCode: string | null;
  result: Record<string, unknown> | null;
  receipt: { id: string; receiptObjectId: string; resultObjectId: string } | null;
}

/**
 * A call that ran: the upstream's result with `_meta.service` (SPEC 4.2), or,
 * when the RESULT says failed, a refusal with status upstream_error that
 * still carries the receipt ids (and the upstream's own content for an
 * error result).
 */
export function completedResult(c: CompletedCall): CallToolResult {
  const meta: ResultServiceMeta = {
    protected_action_id: c.view.id,
    ...(c.receipt
      ? {
          receipt_id: c.receipt.id,
          receipt_object_id: c.receipt.receiptObjectId,
          result_object_id: c.receipt.resultObjectId,
        }
      : {}),
  };
  const policy = observePolicyOf(c.view);
  // Read from the action's columns: validated into the wire's shape, not cast.
  if (policy) meta.policy = observePolicySchema.parse(policy);
  if (c.status === "succeeded" && c.result) {
    const upstreamMeta = (c.result._meta as Body | undefined) ?? {};
    return { ...(c.result as CallToolResult), _meta: { ...upstreamMeta, service: meta } };
  }
  // INTERRUPTED (written by recovery) is an action's error code, not a refusal code: the call's
  // outcome was not recorded by the Gateway that ran it (SPEC 7.3 RESULT_NOT_RECORDED).
  const stored = c.errorCode ?? "UPSTREAM_ERROR";
  const code: GatewayCode = stored in gatewayCodes ? (stored as GatewayCode) : "RESULT_NOT_RECORDED";
  const refusal = refusalResult(
    code,
    failureDetail(stored),
    { protected_action_id: c.view.id, error_code: stored },
    null,
    meta,
  );
  // An error result of the upstream keeps its own content after the refusal's text.
  if (code === "UPSTREAM_TOOL_ERROR" && Array.isArray(c.result?.content))
    refusal.content.push(...(c.result.content as CallToolResult["content"]));
  return refusal;
}

const FAILURES: Partial<Record<string, string>> = {
  UPSTREAM_TOOL_ERROR: "the upstream tool returned an error result",
  UPSTREAM_UNREACHABLE: "the MCP server could not be reached",
  UPSTREAM_TIMEOUT: "the MCP server did not answer within 30 s; it may have acted",
  UPSTREAM_HTTP_ERROR: "the MCP server answered with an HTTP error",
  UPSTREAM_PROTOCOL_ERROR: "the MCP server's answer is not a valid MCP answer; it may have acted",
  UPSTREAM_BLOCKED: "the MCP server's address is not allowed",
  UPSTREAM_RESPONSE_TOO_LARGE: "the MCP server's answer is larger than 1 MiB; it may have acted",
  UPSTREAM_ERROR: "the MCP server answered with an error",
  UPSTREAM_INPUT_REQUIRED:
    "the MCP server asked for input during the call (sampling or elicitation), which the Gateway does not relay; it may have acted",
  OUTPUT_NOT_CANONICAL:
    "the upstream result is not canonical JSON and could not be accepted; it may have acted",
  RESULT_NOT_STORABLE: "the upstream result could not be stored; it may have acted",
  INTERRUPTED: "the execution was interrupted; the upstream may have acted",
};

function failureDetail(code: string): string {
  return FAILURES[code] ?? "the upstream call failed";
}
