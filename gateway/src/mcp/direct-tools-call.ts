import type { FastifyReply, FastifyRequest } from "fastify";
import type { AuthenticatedKey } from "@countersign/core/keys";
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ErrorCode,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolRequest,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { GatewayContext, McpContext } from "../context.js";
import { StaleAdmission } from "@countersign/core/decision";
import type { AdmittedContext } from "./call-intent.js";
import { guarded } from "./handler-errors.js";
import { answerToolsCall, transportOptions } from "./mcp-server.js";
import { progressTokenOf } from "./progress.js";

/** A single tools/call request, as the SDK would hand it to its handler. */
export interface DirectToolsCall {
  id: string | number;
  params: CallToolRequest["params"];
}

/** The members a JSON-RPC request may have: the SDK's JSONRPCRequestSchema is strict. */
const ENVELOPE = new Set(["jsonrpc", "id", "method", "params"]);
/** Headers the SDK's HTTP adapter reads from the raw headers, joining repeats: a repeat is left to it. */
const READ_ONCE = new Set(["accept", "content-type", "mcp-protocol-version", "host"]);
/** A Host the SDK's HTTP adapter (@hono/node-server) takes without parsing it (its reValidHost). */
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

/**
 * The request agents send most, one `tools/call` in one POST, answered
 * without an SDK server and transport. The endpoint is stateless, and the
 * SDK's stateless transport refuses a second request, so the SDK path builds
 * both for every POST and carries the request through Web Request and
 * Response objects; this path calls the same handler (`answerToolsCall`)
 * under the same error guard and answers what the SDK would: the same
 * status, content type and JSON-RPC body, byte for byte
 * (test/gateway/mcp-direct-call.test.ts compares the two).
 *
 * It takes a request only when every check the SDK would make on the way to
 * its tools/call handler passes; anything else (other methods,
 * notifications, batches, bad params, a task-augmented call, unusual
 * headers) is left to the SDK, which answers it as before.
 *
 * Returns the request as the SDK's tools/call handler would receive it, or
 * undefined when the SDK should answer.
 */
export function directToolsCall(request: FastifyRequest): DirectToolsCall | undefined {
  // Answers as an SSE stream would be the SDK's to write.
  if (!transportOptions.enableJsonResponse) return undefined;
  const body = request.body;
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const message = body as Record<string, unknown>;
  if (message.jsonrpc !== "2.0" || message.method !== "tools/call") return undefined;
  const id = message.id;
  if (!(typeof id === "string" || Number.isSafeInteger(id))) return undefined;
  for (const member of Object.keys(message)) if (!ENVELOPE.has(member)) return undefined;
  if (!plainHeaders(request)) return undefined;
  const parsed = CallToolRequestSchema.safeParse(message);
  // A task-augmented call gets the SDK's own answer (this server offers no tasks).
  if (!parsed.success || parsed.data.params.task !== undefined) return undefined;
  return { id: id as string | number, params: parsed.data.params };
}

/** The transport's checks of the HTTP request: Accept, Content-Type, protocol version, the URL. */
function plainHeaders(request: FastifyRequest): boolean {
  const raw = request.raw.rawHeaders;
  const seen = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!READ_ONCE.has(name)) continue;
    if (seen.has(name)) return false;
    seen.add(name);
  }
  const { accept, host } = request.headers;
  const version = request.headers["mcp-protocol-version"];
  return (
    accept !== undefined &&
    accept.includes("application/json") &&
    accept.includes("text/event-stream") &&
    isJsonContentType(request.headers["content-type"]) &&
    (version === undefined ||
      (typeof version === "string" && SUPPORTED_PROTOCOL_VERSIONS.includes(version))) &&
    adapterBuildsUrl(host, request.raw.url)
  );
}

/**
 * The SDK's HTTP adapter builds the request's URL from Host and refuses (400,
 * no body) a Host it cannot use; the transport then parses that URL again.
 * Their checks, so that such a request still gets their answer.
 */
function adapterBuildsUrl(host: string | undefined, path: string | undefined): boolean {
  if (!host || !path?.startsWith("/") || path.includes("\\")) return false;
  const url = URL.parse(`http://${host}${path}`);
  if (!url) return false;
  if (PLAIN_HOST.test(host)) return true;
  const bare = host.includes(":") ? host.replace(/:\d+$/, "") : host;
  return url.hostname.length === host.length || url.hostname === bare.toLowerCase();
}

/**
 * Runs the call and writes the answer the SDK's transport would: one JSON
 * body (`transportOptions`), or, for a call that asked for progress (a
 * `progressToken` in its `_meta`), an SSE stream as the Streamable HTTP
 * transport allows for any POST: the relayed progress notifications as they
 * come, then the answer, each one `message` event (docs/gateway.md,
 * "Progress"). The stream starts with the first notification, so a call
 * that sends none is answered on a stream holding only its answer.
 */
export async function answerDirectly(
  ctx: GatewayContext & { mcp: McpContext },
  key: AuthenticatedKey,
  admitted: AdmittedContext | undefined,
  call: DirectToolsCall,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<StaleAdmission | undefined> {
  const res = reply.raw;
  res.setHeader("x-request-id", request.id);
  reply.hijack();
  // The SDK aborts a handler when its transport closes, which the route does when the response
  // closes before its answer (as the authorize route does): an abort after the answer told no one
  // anything and made a DOMException, with its stack, for every call.
  const closed = new AbortController();
  res.once("close", () => {
    if (!res.writableEnded) closed.abort();
  });
  const stream = progressTokenOf(call.params._meta) !== undefined ? new EventStream(res) : undefined;
  let response: unknown;
  try {
    const result = await guarded(
      "tools/call",
      async () =>
        validResult(
          await answerToolsCall(ctx, key, call.params, closed.signal, admitted, stream && stream.notify),
        ),
      request.id,
      request.log,
    );
    response = { result, jsonrpc: "2.0", id: call.id };
  } catch (err) {
    // Decided from a warm admission whose write did not hold: nothing was recorded; run it again.
    if (err instanceof StaleAdmission) return err;
    const e = err as { code?: unknown; message?: string; data?: unknown };
    response = {
      jsonrpc: "2.0",
      id: call.id,
      error: {
        code: Number.isSafeInteger(e.code) ? e.code : ErrorCode.InternalError,
        message: e.message ?? "Internal error",
        ...(e.data !== undefined && { data: e.data }),
      },
    };
  }
  // Like the SDK, nothing is sent once the client is gone.
  if (closed.signal.aborted) return;
  if (stream) {
    stream.end(response);
    return;
  }
  const text = JSON.stringify(response);
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** What the SDK's Server does with a tools/call handler's result: its schema's output, or -32602. */
function validResult(result: CallToolResult): CallToolResult {
  const valid = CallToolResultSchema.safeParse(result);
  if (!valid.success)
    throw new McpError(ErrorCode.InvalidParams, `Invalid tools/call result: ${valid.error.message}`);
  return valid.data;
}

/**
 * The POST's response as an SSE stream, written as the SDK's transport writes
 * one (`event: message`, the JSON-RPC message as `data`), opened with the
 * first message: a StaleAdmission rerun (which sends nothing before its
 * decision's write held) finds the response untouched.
 */
class EventStream {
  private opened = false;
  constructor(private readonly res: FastifyReply["raw"]) {}

  private write(message: unknown): void {
    if (!this.opened) {
      this.opened = true;
      this.res.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache, no-transform",
        connection: "keep-alive",
        "x-accel-buffering": "no",
      });
    }
    this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  /** A notification related to the call (progress), sent at once. */
  notify = async (notification: { method: string; params?: unknown }): Promise<void> => {
    if (this.res.writableEnded || this.res.destroyed) return;
    this.write({ ...notification, jsonrpc: "2.0" });
  };

  /** The call's answer, which ends the stream. */
  end(response: unknown): void {
    this.write(response);
    this.res.end();
  }
}
