import type { FastifyBaseLogger } from "fastify";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { StaleAdmission } from "@countersign/core/decision";

type Handler = (request: unknown, extra: unknown) => Promise<unknown>;

/**
 * The SDK answers a request whose params fail its schema, and any exception
 * of a handler, with -32603 and the exception's text (a zod dump, or a
 * database message). SPEC 7.3 wants params errors as -32602 naming the
 * members, and -32603 only as "internal error" naming the request id, with
 * the details in our log. The SDK offers no hook for this, so every
 * registered handler (the SDK's own initialize and ping included) is wrapped
 * once the server is built; a test of the fuzz suite fails if the SDK's
 * internals move.
 */
export function guardHandlers(server: Server, requestId: string, log: FastifyBaseLogger): void {
  const handlers = (server as unknown as { _requestHandlers?: Map<string, Handler> })._requestHandlers;
  if (!(handlers instanceof Map))
    throw new Error("the MCP SDK's request handlers are not where guardHandlers expects them");
  for (const [method, handler] of handlers)
    handlers.set(method, (request, extra) => guarded(method, () => handler(request, extra), requestId, log));
}

/**
 * One handler's run with its errors in SPEC 7.3's shape: an McpError as it is,
 * a schema's issues as -32602 naming the members, anything else logged and
 * answered -32603 naming the request id. The direct tools/call path runs its
 * handler through this too, so both paths fail alike.
 */
export async function guarded<T>(
  method: string,
  run: () => Promise<T>,
  requestId: string,
  log: FastifyBaseLogger,
): Promise<T> {
  try {
    return await run();
  } catch (err) {
    // Nothing to answer: the endpoint runs the request again, fresh (core/src/decision/warm-admission.ts).
    if (err instanceof McpError || err instanceof StaleAdmission) throw err;
    const issues = (err as { issues?: { path?: PropertyKey[] }[] })?.issues;
    if (Array.isArray(issues)) {
      const where = [...new Set(issues.map((i) => (i.path ?? []).map(String).join(".") || "(the request)"))]
        .slice(0, 10)
        .join(", ");
      throw new McpError(ErrorCode.InvalidParams, `invalid params of ${method}: ${where}`);
    }
    log.error({ err, method }, "mcp handler failed");
    throw new McpError(ErrorCode.InternalError, `internal error; request id ${requestId}`);
  }
}
