/**
 * An MCP SDK client for the Gateway (SPEC 4.2): the gateway key as bearer
 * token, the per-call metadata `service/idempotency-key` and
 * `service/wait-seconds`, refusals as typed results (or thrown as
 * `ServiceRefusalError` with `throwOnRefusal`), and tools/list paged to at
 * most 1000 pages.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { rpcErrorDataSchema, type CallMeta } from "@countersign/protocol/wire";
import { checkApiKey } from "../authorize/api-key.js";
import {
  ServiceError,
  ServiceProtocolError,
  ServiceRefusalError,
  ServiceUnavailableError,
} from "../authorize/errors.js";
import { checkGatewayUrl, endpoint } from "../authorize/gateway-url.js";
import { gatewayFetch } from "./gateway-fetch.js";
import { readToolResult, type ToolCallOutcome, type ToolRefusal } from "./tool-result.js";

export const MAX_TOOL_PAGES = 1000;
const BASE_TIMEOUT_MS = 60_000;

export interface GatewayClientOptions {
  gatewayUrl: string;
  apiKey: string;
  /** Throw `ServiceRefusalError` (holding the refusal) instead of returning refusals. */
  throwOnRefusal?: boolean;
  clientInfo?: { name: string; version: string };
  /** For tests and instrumentation: the fetch under the Gateway checks. */
  fetch?: FetchLike;
}

export interface ToolCall {
  name: string;
  arguments?: Record<string, unknown>;
  /** One key per business operation: a repeat answers for the same action, never runs it twice. */
  idempotencyKey?: string;
  /** How long the Gateway may hold the call while a person decides (0 to 60). */
  waitSeconds?: number;
  timeoutMs?: number;
}

export class GatewayClient {
  private constructor(
    /** The underlying MCP SDK client, for anything this helper does not wrap. */
    readonly client: Client,
    private readonly throwOnRefusal: boolean,
  ) {}

  static async connect(opts: GatewayClientOptions): Promise<GatewayClient> {
    const apiKey = checkApiKey(opts.apiKey);
    const base = checkGatewayUrl(opts.gatewayUrl);
    const url = endpoint(base, "mcp");
    const client = new Client(opts.clientInfo ?? { name: "countersign-client", version: "0.1.0" });
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
      fetch: gatewayFetch(url.origin, opts.fetch),
    });
    await mapped(() => client.connect(transport));
    return new GatewayClient(client, opts.throwOnRefusal === true);
  }

  /** Every tool, page by page; more than 1000 pages is `TOO_MANY_PAGES` (a Gateway never pages forever). */
  async listTools(): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const answer = await mapped(() => this.client.listTools(cursor === undefined ? {} : { cursor }));
      tools.push(...answer.tools);
      if (!answer.nextCursor) return tools;
      cursor = answer.nextCursor;
    }
    throw new ServiceError("TOO_MANY_PAGES", `tools/list returned more than ${MAX_TOOL_PAGES} pages`);
  }

  async callTool(call: ToolCall): Promise<ToolCallOutcome> {
    const meta: CallMeta = {};
    if (call.idempotencyKey !== undefined) meta["service/idempotency-key"] = call.idempotencyKey;
    if (call.waitSeconds !== undefined) meta["service/wait-seconds"] = call.waitSeconds;
    const timeout = call.timeoutMs ?? BASE_TIMEOUT_MS + Math.min(call.waitSeconds ?? 0, 60) * 1000;
    const result = (await mapped(() =>
      this.client.callTool(
        {
          name: call.name,
          arguments: call.arguments ?? {},
          ...(Object.keys(meta).length ? { _meta: meta } : {}),
        },
        undefined,
        { timeout },
      ),
    )) as CallToolResult;
    const outcome = readToolResult(result);
    if (!outcome.ok && this.throwOnRefusal)
      throw new ServiceRefusalError<ToolRefusal>(
        outcome.refusal.code,
        outcome.refusal.detail,
        outcome.refusal,
      );
    return outcome;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

export const connectGateway = (opts: GatewayClientOptions): Promise<GatewayClient> =>
  GatewayClient.connect(opts);

/** SDK errors in the classes of SPEC 7.4; ours pass through. */
async function mapped<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    if (err instanceof McpError) {
      if (err.code === ErrorCode.RequestTimeout)
        throw new ServiceUnavailableError(
          "TIMEOUT",
          "no answer from the Gateway in time; the outcome is unknown",
          { outcomeUnknown: true, cause: err },
        );
      const service = rpcErrorDataSchema.safeParse(err.data).data?.service;
      if (service?.status === "unavailable") {
        throw new ServiceUnavailableError(
          "RPC_UNAVAILABLE",
          `the Gateway answered unavailable (${service.code})`,
          { outcomeUnknown: false, cause: err },
        );
      }
      throw new ServiceProtocolError(
        `the Gateway answered a JSON-RPC error (${err.code}) instead of a result`,
      );
    }
    throw new ServiceProtocolError(
      `not a Gateway answer: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}
