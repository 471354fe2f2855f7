import type { FastifyReply, FastifyRequest } from "fastify";
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import {
  createMcpHandler,
  isLegacyRequest,
  Server,
  type ListToolsResult,
  type McpHttpHandler,
} from "@modelcontextprotocol/server";
import type { AuthenticatedKey } from "@countersign/core/keys";
import { jsonRpcErrors } from "@countersign/protocol/errors";
import { inSpan } from "@countersign/core/telemetry";
import type { CallToolRequest } from "@modelcontextprotocol/sdk/types.js";
import type { GatewayContext, McpContext } from "../context.js";
import type { AdmittedContext } from "./call-intent.js";
import { guarded } from "./handler-errors.js";
import { answerToolsCall, unavailableAsRpcError } from "./mcp-server.js";
import type { Notify } from "./progress.js";
import { listTools } from "./tools-list.js";

/** The revision served by the official v2 server package (`@modelcontextprotocol/server`). */
export const MODERN_REVISION = "2026-07-28";
/** The revisions with `initialize` and sessions, served by the v1 SDK's server (mcp-server.ts). */
export const LEGACY_REVISIONS: readonly string[] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
const ENVELOPE_VERSION = "io.modelcontextprotocol/protocolVersion";

/**
 * Whether a POST may be of the 2026-07-28 era, read cheaply so the legacy
 * hot path (a 2025 tools/call) pays nothing more than a header lookup and one
 * property read: a `MCP-Protocol-Version` header that is not a legacy
 * revision, or a body whose params carry the per-request envelope. The SDK's
 * own classification (`isLegacyRequest`) then decides such a request.
 */
export function mayBeModern(request: FastifyRequest): boolean {
  const version = request.headers["mcp-protocol-version"];
  if (version !== undefined && !(typeof version === "string" && LEGACY_REVISIONS.includes(version)))
    return true;
  const body = request.body;
  if (typeof body !== "object" || body === null) return false;
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.some((m) => {
    const meta = (m as { params?: { _meta?: unknown } } | null)?.params?._meta;
    return typeof meta === "object" && meta !== null && ENVELOPE_VERSION in meta;
  });
}

/** A single request's JSON-RPC id (a string or a whole number), or null. */
export function requestIdOf(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === "string" || Number.isSafeInteger(id) ? (id as string | number) : null;
}

interface Caller {
  key: AuthenticatedKey;
  admitted: AdmittedContext | undefined;
  requestId: string;
  log: FastifyRequest["log"];
}

/**
 * MCP 2026-07-28 on /mcp: stateless by design (no `initialize`,
 * `server/discover`, protocol version and client capabilities in each
 * request's `_meta`, the `Mcp-Method`/`Mcp-Name` headers checked against the
 * body with -32020, an unsupported revision -32022). The official v2 server
 * package does all of that (`createMcpHandler`, `legacy: "reject"`: the
 * 2025 revisions stay on the v1 path, whose direct tools/call answer is
 * measured by `make bench`); its per-request server has the same tools/list
 * and tools/call handlers as the legacy one, for the key the route checked
 * on the body before handing the request over. Headers never authorize.
 */
export class ModernMcp {
  private readonly handler: McpHttpHandler;
  /** The key of each request being served, found by the factory through the Request it is given. */
  private readonly callers = new WeakMap<Request, Caller>();

  constructor(private readonly ctx: GatewayContext & { mcp: McpContext }) {
    this.handler = createMcpHandler(
      ({ requestInfo }) => {
        const caller = requestInfo ? this.callers.get(requestInfo) : undefined;
        if (!caller) throw new Error("a 2026-07-28 request reached the MCP server without its checked key");
        return this.server(caller);
      },
      // Mid-call notifications (progress) upgrade the answer to an SSE stream; a plain call stays one JSON body.
      { legacy: "reject", responseMode: "auto" },
    );
  }

  /** Whether the SDK classifies this request as 2026-07-28 traffic. */
  async isModern(request: FastifyRequest): Promise<boolean> {
    return !(await isLegacyRequest(webRequest(request), request.body));
  }

  /** Answers one 2026-07-28 request for a key that passed its check. */
  async answer(
    request: FastifyRequest,
    reply: FastifyReply,
    key: AuthenticatedKey,
    admitted: AdmittedContext | undefined,
  ): Promise<void> {
    const abort = new AbortController();
    const web = webRequest(request, abort.signal);
    this.callers.set(web, { key, admitted, requestId: request.id, log: request.log });
    reply.hijack();
    const res = reply.raw;
    res.once("close", () => {
      if (!res.writableEnded) abort.abort();
    });
    let response: Response;
    try {
      response = await this.handler.fetch(web, { parsedBody: request.body });
    } catch (err) {
      // The handler answers every refusal itself; a throw is a fault: logged, answered as /mcp's 500.
      request.log.error({ err }, "mcp 2026-07-28 request failed");
      if (res.headersSent) return void res.destroy();
      const text = JSON.stringify({
        jsonrpc: "2.0",
        id: null,
        error: { code: jsonRpcErrors.INTERNAL_ERROR, message: `internal error; request id ${request.id}` },
      });
      res.writeHead(500, { "content-type": "application/json", "x-request-id": request.id });
      return void res.end(text);
    }
    res.statusCode = response.status;
    response.headers.forEach((value, name) => res.setHeader(name, value));
    res.setHeader("x-request-id", request.id);
    if (!response.body) {
      res.end();
      return;
    }
    Readable.fromWeb(response.body as NodeReadableStream).pipe(res);
  }

  close(): Promise<void> {
    return this.handler.close();
  }

  private server(caller: Caller): Server {
    const { ctx } = this;
    const server = new Server(
      { name: "countersign-gateway", version: "0.1.0" },
      { capabilities: { tools: { listChanged: false } } },
    );
    // The v1 and v2 packages declare the same wire types separately; the JSON is the same.
    server.setRequestHandler("tools/list", (request) =>
      guarded<ListToolsResult>(
        "tools/list",
        () =>
          inSpan(
            "mcp.tools_list",
            async () => (await listTools(ctx.pool, caller.key, request.params?.cursor)) as ListToolsResult,
          ).catch(unavailableAsRpcError),
        caller.requestId,
        caller.log,
      ),
    );
    server.setRequestHandler("tools/call", (request, extra) =>
      guarded(
        "tools/call",
        () =>
          answerToolsCall(
            ctx,
            caller.key,
            request.params as CallToolRequest["params"],
            extra.mcpReq.signal,
            caller.admitted,
            // The v2 server's notify (same wire shape); progress upgrades the answer to SSE.
            extra.mcpReq.notify as Notify,
          ),
        caller.requestId,
        caller.log,
      ),
    );
    return server;
  }
}

/** The web-standard Request the v2 handler reads: method, URL and headers (the body is already parsed). */
function webRequest(request: FastifyRequest, signal?: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  headers.delete("content-length");
  return new Request(`http://${request.headers.host ?? "localhost"}${request.raw.url ?? "/mcp"}`, {
    method: request.method,
    headers,
    signal,
  });
}
