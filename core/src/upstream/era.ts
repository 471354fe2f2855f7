import {
  Client as ModernClient,
  ProtocolError,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import type { AddressRules } from "../net/index.js";
import { ByteBudget, upstreamFetch, type UpstreamFailure, type UpstreamFetchOptions } from "./fetch.js";

/** The stateless revision; every other revision the Gateway speaks to upstreams has `initialize` and sessions. */
export const MODERN_REVISION = "2026-07-28";

/** How the Gateway speaks to one upstream server: the 2025 handshake (v1 SDK, sessions) or 2026-07-28 (v2 SDK). */
export type UpstreamEra = "legacy" | typeof MODERN_REVISION;

/** The probe's own bounds: a `server/discover` answer is small and quick, or the server is taken as legacy. */
const PROBE = { timeoutMs: 5_000, bytes: 64 * 1024 } as const;

/**
 * Which era each upstream server speaks, per organization, found at the first
 * call and remembered for the process (docs/gateway.md, "Upstream
 * revisions"). The 2025 handshake is tried first, as it always was, so a
 * server that speaks it costs nothing more; only a server that refused even
 * to open a session is asked, with one stateless `server/discover`, whether
 * it speaks 2026-07-28, and is then called in it. The key is the
 * organization and the server's URL and credential, so nothing one
 * organization's calls learned is read for another's, even on the same public
 * server. Bounded: past `max` entries the oldest is forgotten (it costs one
 * more refused handshake, nothing else).
 */
export class UpstreamEras {
  private readonly known = new Map<string, UpstreamEra>();

  constructor(private readonly max = 4096) {}

  /** What is remembered of the server for this organization; undefined: not known yet (try 2025 first). */
  remembered(target: EraTarget): UpstreamEra | undefined {
    return this.known.get(keyOf(target));
  }

  /**
   * After the server refused to open a 2025 session (the call was not sent): whether it speaks
   * 2026-07-28, asked within `timeoutMs` (the call's own bound when shorter than 5 s) and
   * remembered when it answered. A server that answers neither is asked again at the next call.
   */
  async afterRefusedHandshake(target: EraTarget, timeoutMs: number): Promise<UpstreamEra> {
    const probe = await probeEra(target, Math.min(PROBE.timeoutMs, timeoutMs));
    if (probe.answered) {
      this.known.set(keyOf(target), probe.era);
      while (this.known.size > this.max) this.known.delete(this.known.keys().next().value!);
    }
    return probe.era;
  }
}

/**
 * Whether a server that refused the 2025 handshake speaks 2026-07-28 (one
 * `server/discover`, within `timeoutMs` and 5 s): for a one-off exchange
 * such as the Cloud API's discovery, which remembers nothing.
 */
export async function speaksModern(target: Omit<EraTarget, "organizationId">, timeoutMs: number) {
  return (
    (await probeEra({ ...target, organizationId: "" }, Math.min(PROBE.timeoutMs, timeoutMs))).era ===
    MODERN_REVISION
  );
}

/**
 * A v2 client pinned to 2026-07-28, connected over Streamable HTTP with the
 * given fetch (the caller's address rules, budget and deadline): for a
 * one-off exchange with a server that speaks only 2026-07-28.
 */
export async function connectModern(
  url: string,
  transport: { fetch: ReturnType<typeof upstreamFetch>; requestInit?: RequestInit },
  call: { timeout: number; signal: AbortSignal },
  name = "countersign-gateway",
): Promise<ModernClient> {
  const client = new ModernClient(
    { name, version: "0.1.0" },
    { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
  );
  try {
    await client.connect(new ModernTransport(new URL(url), transport), call);
  } catch (err) {
    await client.close().catch(() => undefined);
    throw err;
  }
  return client;
}

const keyOf = (t: EraTarget) => JSON.stringify([t.organizationId, t.url, t.authorization ?? ""]);

interface Probe {
  era: UpstreamEra;
  /** Whether the server answered (an answer is remembered; no answer is probed again next time). */
  answered: boolean;
}

/** After a failed probe: whether the server did answer (an HTTP status, or a body that is not MCP). */
const answeredAnyway = (failure: { first?: UpstreamFailure }) =>
  failure.first === undefined || failure.first.kind === "http";

export interface EraTarget {
  organizationId: string;
  url: string;
  authorization: string | null;
  rules: AddressRules;
  ca?: readonly string[];
}

/**
 * One stateless `server/discover` (MCP 2026-07-28) with the per-request
 * envelope and its headers, and its own JSON-RPC id. Asked only of a server
 * that refused the 2025 handshake: one that lists 2026-07-28 is called in it;
 * any other answer leaves it "legacy" (its calls keep failing as they did).
 * Never throws.
 */
async function probeEra(target: EraTarget, timeoutMs: number): Promise<Probe> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  const failure: { first?: UpstreamFailure } = {};
  const fetch = upstreamFetch({
    rules: target.rules,
    ca: target.ca,
    budget: new ByteBudget(PROBE.bytes),
    signal: abort.signal,
    failure,
    abort: () => abort.abort(),
  });
  try {
    const res = await fetch(target.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": MODERN_REVISION,
        "mcp-method": "server/discover",
        ...(target.authorization ? { authorization: target.authorization } : {}),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        // Its own id, so that a server's logs (and the tests) tell the probe from a client's discover.
        id: "countersign-era-probe",
        method: "server/discover",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": MODERN_REVISION,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": { name: "countersign-gateway", version: "0.1.0" },
          },
        },
      }),
    });
    if (res.status !== 200) return { era: "legacy", answered: true };
    const text = await res.text();
    // A JSON body, or the first message of an SSE stream.
    const json = res.headers.get("content-type")?.includes("text/event-stream")
      ? /^data: ?(.*)$/m.exec(text)?.[1]
      : text;
    const versions = (JSON.parse(json ?? "null") as { result?: { supportedVersions?: unknown } } | null)
      ?.result?.supportedVersions;
    return {
      era: Array.isArray(versions) && versions.includes(MODERN_REVISION) ? MODERN_REVISION : "legacy",
      answered: true,
    };
  } catch {
    // Unreachable, too slow or too large (nothing learned: probed again next time), or a body that is not MCP.
    return { era: "legacy", answered: !abort.signal.aborted && answeredAnyway(failure) };
  } finally {
    clearTimeout(timer);
  }
}

/** What a 2026-07-28 call gives back to call-tool.ts: the result as received, or the error with the first failure. */
export type ModernAnswer =
  | { kind: "result"; result: Record<string, unknown> }
  | { kind: "input_required" }
  /** `rpcError`: the server answered a JSON-RPC error (with this code). */
  | { kind: "error"; err: unknown; failure: UpstreamFailure | undefined; rpcError?: number };

/**
 * One tools/call in MCP 2026-07-28 with the official v2 client pinned to it:
 * stateless, so no session to keep (each call is one POST with the
 * per-request envelope and the `Mcp-Method`/`Mcp-Name` headers the client
 * adds), through the same fetch as every upstream exchange (SPEC 6.4's
 * address rules at every connection, the call's byte budget, its deadline).
 * An `input_required` result (the server asks the caller for input) is not
 * fulfilled: the Gateway does not answer for its caller.
 */
export async function callModernTool(
  c: {
    url: string;
    authorization: string | null;
    params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> };
    onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
  },
  exchange: UpstreamFetchOptions,
  timeoutMs: number,
): Promise<ModernAnswer> {
  const client = new ModernClient(
    { name: "countersign-gateway", version: "0.1.0" },
    {
      versionNegotiation: { mode: { pin: MODERN_REVISION } },
      // Declared so that a server wanting input says so (input_required) instead of answering a
      // degraded result the Gateway could not tell from a real one, as input-requests.ts does for 2025.
      capabilities: { sampling: {}, elicitation: {} },
      inputRequired: { autoFulfill: false },
    },
  );
  const transport = new ModernTransport(new URL(c.url), {
    fetch: upstreamFetch(exchange),
    requestInit: c.authorization ? { headers: { authorization: c.authorization } } : undefined,
  });
  try {
    await client.connect(transport, { timeout: timeoutMs, signal: exchange.signal });
    const result = (await client.callTool(c.params, {
      timeout: timeoutMs,
      signal: exchange.signal,
      allowInputRequired: true,
      ...(c.onprogress ? { onprogress: c.onprogress } : {}),
    })) as Record<string, unknown>;
    if (result.resultType === "input_required") return { kind: "input_required" };
    return { kind: "result", result };
  } catch (err) {
    return {
      kind: "error",
      err,
      failure: exchange.failure.first,
      ...(err instanceof ProtocolError ? { rpcError: err.code } : {}),
    };
  } finally {
    await client.close().catch(() => undefined);
  }
}
