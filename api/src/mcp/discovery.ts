import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { checkInputSchema, readToolDeclaration } from "@countersign/core/mcp-servers";
import {
  ByteBudget,
  connectModern,
  speaksModern,
  upstreamFetch,
  type UpstreamFailure,
} from "@countersign/core/upstream";
import { declarationCapabilityKey } from "@countersign/protocol/upstream";
import type { ToolDeclaration } from "@countersign/protocol/wire";
import type { McpOptions } from "./options.js";

/** SPEC 8.3: at most 20 tools/list pages and 2000 tools; more than 8 MiB of answers in total is too large. */
export const discoveryLimits = { pages: 20, tools: 2000, bytes: 8 * 1024 * 1024 } as const;
/** SPEC 8.4: the whole exchange with an upstream MCP server. */
export const DISCOVERY_TIMEOUT_MS = 30_000;

/** What tools/list says of one tool; the schema is judged here, not by the SDK, so one bad tool does not hide the others. */
const listedTool = z.looseObject({
  name: z.string().min(1).max(512),
  description: z.string().max(65_536).optional(),
  inputSchema: z.unknown(),
});
const listResult = z.looseObject({
  tools: z.array(z.unknown()),
  nextCursor: z.string().max(4096).optional(),
});

export interface DiscoveredTool {
  name: string;
  description: string | null;
  input_schema: unknown;
  /** null when the schema is an MCP object schema of at most 64 KiB; else why not (UPSTREAM_SCHEMA_INVALID if chosen). */
  schema_problem: "not_object_schema" | "too_large" | "not_json" | null;
  /** Title, icons, outputSchema, annotations and execution as declared (core/src/mcp-servers/tool-declaration.ts); null: none. */
  declaration: ToolDeclaration | null;
}

export interface Discovery {
  tools: DiscoveredTool[];
  pages: number;
  bytes: number;
  /** What the server declared at initialize under `capabilities.experimental["service/evidence"]`. */
  declaration: unknown;
}

function refusal(f: UpstreamFailure | undefined, err: unknown): ServiceError {
  switch (f?.kind) {
    case "url_not_allowed":
      return new ServiceError(
        "URL_NOT_ALLOWED",
        `the MCP server's address is not allowed: ${f.reason.replace(/_/g, " ")}`,
        { reason: f.reason },
      );
    case "timeout":
      return new ServiceError("UPSTREAM_TIMEOUT", "the MCP server did not finish answering in time");
    case "too_large":
      return new ServiceError(
        "DISCOVERY_TOO_LARGE",
        `the MCP server's answers exceed ${discoveryLimits.bytes} bytes in total`,
      );
    case "unreachable":
      return new ServiceError("UPSTREAM_UNREACHABLE", `the MCP server could not be reached (${f.message})`);
    case "http":
      return new ServiceError("UPSTREAM_ERROR", `the MCP server answered HTTP ${f.status}`, {
        http_status: f.status,
      });
    default:
      return err instanceof ServiceError
        ? err
        : new ServiceError("UPSTREAM_ERROR", "the MCP server's answer is not a valid MCP answer");
  }
}

/** What discovery asks of an MCP client: the v1 SDK's (2025 handshake) or the v2's pinned to 2026-07-28. */
interface DiscoveryClient {
  request<S extends z.ZodType>(
    request: { method: "tools/list"; params: { cursor?: string } },
    schema: S,
    options: { timeout: number; signal: AbortSignal },
  ): Promise<z.output<S>>;
  getServerCapabilities(): { experimental?: Record<string, unknown> } | undefined;
  close(): Promise<void>;
}

type Session<T> = (client: DiscoveryClient, call: { timeout: number; signal: AbortSignal }) => Promise<T>;

/**
 * One exchange with an MCP server through the MCP SDK client over Streamable
 * HTTP (initialize, then `run`), within the whole-exchange timeout and the
 * byte budget; failures become the Cloud API's codes.
 */
async function withUpstream<T>(
  server: { url: string; authorization: string | null },
  opts: McpOptions,
  budget: ByteBudget,
  run: Session<T>,
): Promise<T> {
  const failure: { first?: UpstreamFailure } = {};
  const abort = new AbortController();
  const timer = setTimeout(() => {
    failure.first ??= { kind: "timeout" };
    abort.abort();
  }, opts.discoveryTimeoutMs ?? DISCOVERY_TIMEOUT_MS);
  const rules = { allowLoopback: opts.allowLoopbackUrls, resolve: opts.resolve };
  const fetch = upstreamFetch({
    rules,
    ca: opts.ca,
    budget,
    signal: abort.signal,
    failure,
    abort: () => abort.abort(),
  });
  const requestInit = server.authorization ? { headers: { authorization: server.authorization } } : undefined;
  const transport = new StreamableHTTPClientTransport(new URL(server.url), { fetch, requestInit });
  const legacy = new Client({ name: "countersign-discovery", version: "0.1.0" });
  let client: DiscoveryClient = legacy;
  const timeout = opts.discoveryTimeoutMs ?? DISCOVERY_TIMEOUT_MS;
  try {
    try {
      await legacy.connect(transport, { timeout, signal: abort.signal });
    } catch (err) {
      // A server that refused the 2025 handshake may speak only 2026-07-28 (core/src/upstream/era.ts).
      const refused = failure.first?.kind === "http" || (!failure.first && err instanceof McpError);
      if (!refused || !(await speaksModern({ ...server, rules, ca: opts.ca }, timeout))) throw err;
      failure.first = undefined;
      await legacy.close().catch(() => undefined);
      client = await connectModern(
        server.url,
        { fetch, requestInit },
        { timeout, signal: abort.signal },
        "countersign-discovery",
      );
    }
    return await run(client, { timeout, signal: abort.signal });
  } catch (err) {
    if (err instanceof ServiceError && !failure.first) throw err;
    throw refusal(failure.first, err);
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => undefined);
  }
}

/** What the server declared in its initialize result about taking Countersign's evidence (undefined: nothing). */
const declarationIn = (client: DiscoveryClient): unknown =>
  client.getServerCapabilities()?.experimental?.[declarationCapabilityKey];

/**
 * An MCP server's declaration of being service-aware (docs/evidence.md
 * section 11), read from its initialize result without listing its tools.
 */
export async function readDeclaration(
  server: { url: string; authorization: string | null },
  opts: McpOptions,
): Promise<unknown> {
  return withUpstream(server, opts, new ByteBudget(discoveryLimits.bytes), async (client) =>
    declarationIn(client),
  );
}

/**
 * Lists an MCP server's tools within SPEC 8.3's limits, with what it
 * declared at initialize. Nothing is stored here; the caller holds a
 * discovery slot (discovery-slots.ts).
 */
export async function discoverTools(
  server: { url: string; authorization: string | null },
  opts: McpOptions,
): Promise<Discovery> {
  const budget = new ByteBudget(discoveryLimits.bytes);
  return withUpstream(server, opts, budget, async (client, call) => {
    const tools: DiscoveredTool[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      if (pages === discoveryLimits.pages)
        throw new ServiceError(
          "DISCOVERY_TOO_LARGE",
          `the MCP server lists tools on more than ${discoveryLimits.pages} pages`,
        );
      const page = await client.request(
        { method: "tools/list", params: cursor ? { cursor } : {} },
        listResult,
        call,
      );
      pages++;
      for (const raw of page.tools) {
        const t = listedTool.safeParse(raw);
        if (!t.success)
          throw new ServiceError("UPSTREAM_ERROR", "the MCP server listed a tool without a name");
        const check = checkInputSchema(t.data.inputSchema);
        tools.push({
          name: t.data.name,
          description: t.data.description ?? null,
          input_schema: t.data.inputSchema ?? null,
          schema_problem: check.ok ? null : check.problem,
          declaration: readToolDeclaration(t.data),
        });
      }
      if (tools.length > discoveryLimits.tools)
        throw new ServiceError(
          "DISCOVERY_TOO_LARGE",
          `the MCP server lists more than ${discoveryLimits.tools} tools`,
        );
      cursor = page.nextCursor;
    } while (cursor);
    return { tools, pages, bytes: budget.used, declaration: declarationIn(client) };
  });
}
