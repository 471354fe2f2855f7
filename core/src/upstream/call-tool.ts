import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError, type Progress } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { GatewayCode } from "@countersign/protocol/errors";
import type { AddressRules } from "../net/index.js";
import { ByteBudget, upstreamFetch, type UpstreamFailure, type UpstreamFetchOptions } from "./fetch.js";
import { inputAskedDuringCall, upstreamClient, type InputRequest } from "./input-requests.js";
import { currentCall, UpstreamSessions, type SessionOwner } from "./sessions.js";
import { callModernTool, MODERN_REVISION, type UpstreamEras } from "./era.js";

/** SPEC 8.3 and 8.4: one upstream call, the whole exchange. */
export const upstreamLimits = { timeoutMs: 30_000, bytes: 1024 * 1024 } as const;

export interface UpstreamCall {
  url: string;
  /** The stored authorization header, decrypted; null when the server needs none. */
  authorization: string | null;
  tool: string;
  arguments: Record<string, unknown>;
  /** Request metadata (`params._meta`): the evidence for a service-aware upstream. */
  meta?: Record<string, unknown>;
  rules: AddressRules;
  ca?: string[];
  timeoutMs?: number;
  maxBytes?: number;
  /** Called with each progress notification the server sends for this call (the caller asked for progress). */
  onProgress?: (progress: Progress) => void;
  /** The process's persistent sessions; without them (or an owner), the call opens and closes a session of its own. */
  sessions?: UpstreamSessions;
  /** The agent the call is made for: a persistent session serves one agent's calls only (sessions.ts). */
  owner?: SessionOwner;
  /** Which revision each server speaks, per organization (era.ts); without it (or an owner), the 2025 handshake. */
  eras?: UpstreamEras;
}

export type UpstreamOutcome =
  /** The upstream answered a tool result (isError true is UPSTREAM_TOOL_ERROR, still a result). */
  | { kind: "result"; result: Record<string, unknown>; isError: boolean }
  /** `notSent`: the call never left the Gateway (no session could be opened). */
  | { kind: "failure"; code: UpstreamFailureCode; detail: string; notSent?: true };

export type UpstreamFailureCode = Extract<
  GatewayCode,
  | "UPSTREAM_UNREACHABLE"
  | "UPSTREAM_TIMEOUT"
  | "UPSTREAM_HTTP_ERROR"
  | "UPSTREAM_PROTOCOL_ERROR"
  | "UPSTREAM_BLOCKED"
  | "UPSTREAM_RESPONSE_TOO_LARGE"
  | "UPSTREAM_ERROR"
  | "UPSTREAM_INPUT_REQUIRED"
>;

/** The failures of opening a 2025 session that a server speaking only 2026-07-28 answers with. */
const HANDSHAKE_REFUSALS = new Set<UpstreamFailureCode>([
  "UPSTREAM_HTTP_ERROR",
  "UPSTREAM_ERROR",
  "UPSTREAM_PROTOCOL_ERROR",
]);

/** A tools/call result as MCP defines it: content items, optional structured content, isError. */
const toolResult = z.looseObject({
  content: z.array(z.unknown()).optional(),
  isError: z.boolean().optional(),
});

/** The call's request options: its deadline, and its progress handler when the caller asked for progress. */
const requestOptions = (c: UpstreamCall, timeout: number, signal: AbortSignal) => ({
  timeout,
  signal,
  ...(c.onProgress ? { onprogress: c.onProgress } : {}),
});

const paramsOf = (c: UpstreamCall) => ({
  name: c.tool,
  arguments: c.arguments,
  ...(c.meta ? { _meta: c.meta } : {}),
});

function failureOf(
  f: UpstreamFailure | undefined,
  err: unknown,
): { code: UpstreamFailureCode; detail: string } {
  switch (f?.kind) {
    case "url_not_allowed":
      return {
        code: "UPSTREAM_BLOCKED",
        detail: `the MCP server's address is not allowed (${f.reason.replace(/_/g, " ")})`,
      };
    case "timeout":
      return {
        code: "UPSTREAM_TIMEOUT",
        detail: "the MCP server did not answer within 30 s; it may have acted",
      };
    case "too_large":
      return {
        code: "UPSTREAM_RESPONSE_TOO_LARGE",
        detail: "the MCP server's answer is larger than 1 MiB; it may have acted",
      };
    case "unreachable":
      return { code: "UPSTREAM_UNREACHABLE", detail: `the MCP server could not be reached (${f.message})` };
    case "http":
      return { code: "UPSTREAM_HTTP_ERROR", detail: `the MCP server answered HTTP ${f.status}` };
  }
  if (err instanceof McpError)
    return { code: "UPSTREAM_ERROR", detail: `the MCP server answered a JSON-RPC error (${err.code})` };
  return { code: "UPSTREAM_PROTOCOL_ERROR", detail: "the MCP server's answer is not a valid MCP answer" };
}

/**
 * One tools/call on an upstream MCP server through the MCP SDK client over
 * Streamable HTTP: initialize, call, close, all within 30 s and 1 MiB of
 * answers, connecting only where SPEC 6.4 allows. Never throws: every way it
 * can go wrong is one of the upstream codes of SPEC 7.3.
 */
export async function callUpstreamTool(c: UpstreamCall): Promise<UpstreamOutcome> {
  const asked = new Set<InputRequest>();
  const outcome = await inputAskedDuringCall.run(asked, () => callOnce(c));
  return asked.size > 0 ? inputRequired(asked) : outcome;
}

/**
 * A server that asked for input during the call (sampling, elicitation) was
 * refused it (input-requests.ts): whatever it answered then is not the
 * answer it would have given with it, so the call failed, saying why.
 */
function inputRequired(asked: Set<InputRequest>): UpstreamOutcome {
  return {
    kind: "failure",
    code: "UPSTREAM_INPUT_REQUIRED",
    detail: `the MCP server asked for ${[...asked].join(" and ")} during the call, which the Gateway does not relay; it may have acted`,
  };
}

/**
 * The state one call's exchanges share (fetch.ts), bounded by the call's
 * timeout and answer budget: a timeout is recorded as the first failure and
 * aborts whatever is in flight. `end` clears the timer.
 */
function boundedExchange(c: UpstreamCall) {
  const timeoutMs = c.timeoutMs ?? upstreamLimits.timeoutMs;
  const abort = new AbortController();
  const exchange: UpstreamFetchOptions = {
    rules: c.rules,
    ca: c.ca,
    budget: new ByteBudget(c.maxBytes ?? upstreamLimits.bytes),
    signal: abort.signal,
    failure: {},
    abort: () => abort.abort(),
  };
  const timer = setTimeout(() => {
    exchange.failure.first ??= { kind: "timeout" };
    abort.abort();
  }, timeoutMs);
  return { exchange, timeoutMs, signal: abort.signal, end: () => clearTimeout(timer) };
}

async function callOnce(c: UpstreamCall): Promise<UpstreamOutcome> {
  if (c.sessions && c.owner) {
    const era = c.eras
      ? { eras: c.eras, target: { ...c, organizationId: c.owner.organizationId } }
      : undefined;
    if (era?.eras.remembered(era.target) === MODERN_REVISION) return callModern(c);
    const outcome = await callInSession({ ...c, owner: c.owner }, c.sessions);
    // A server that refused to open a 2025 session was not sent the call: it may speak only 2026-07-28 (era.ts).
    if (
      era &&
      outcome.kind === "failure" &&
      outcome.notSent &&
      HANDSHAKE_REFUSALS.has(outcome.code) &&
      era.eras.remembered(era.target) === undefined &&
      (await era.eras.afterRefusedHandshake(era.target, c.timeoutMs ?? upstreamLimits.timeoutMs)) ===
        MODERN_REVISION
    )
      return callModern(c);
    return outcome;
  }
  const { exchange, timeoutMs, signal, end } = boundedExchange(c);
  const failure = exchange.failure;
  const transport = new StreamableHTTPClientTransport(new URL(c.url), {
    fetch: upstreamFetch(exchange),
    requestInit: c.authorization ? { headers: { authorization: c.authorization } } : undefined,
  });
  const client = upstreamClient();
  try {
    await client.connect(transport, { timeout: timeoutMs, signal });
    const raw = await client.request(
      { method: "tools/call", params: paramsOf(c) },
      toolResult,
      requestOptions(c, timeoutMs, signal),
    );
    if (failure.first) return { kind: "failure", ...failureOf(failure.first, undefined) };
    return { kind: "result", result: raw as Record<string, unknown>, isError: raw.isError === true };
  } catch (err) {
    return { kind: "failure", ...failureOf(failure.first, err) };
  } finally {
    end();
    await client.close().catch(() => undefined);
  }
}

/** The call to a server that speaks only MCP 2026-07-28 (era.ts): stateless, no session to keep. */
async function callModern(c: UpstreamCall): Promise<UpstreamOutcome> {
  const { exchange, timeoutMs, end } = boundedExchange(c);
  try {
    const params = paramsOf(c);
    const answer = await callModernTool({ ...c, params, onprogress: c.onProgress }, exchange, timeoutMs);
    if (answer.kind === "input_required")
      return {
        kind: "failure",
        code: "UPSTREAM_INPUT_REQUIRED",
        detail:
          "the MCP server answered input_required (it asks for input), which the Gateway does not relay; it may have acted",
      };
    if (answer.kind === "error") {
      const err = answer.rpcError === undefined ? answer.err : new McpError(answer.rpcError, "");
      return { kind: "failure", ...failureOf(answer.failure, err) };
    }
    if (exchange.failure.first) return { kind: "failure", ...failureOf(exchange.failure.first, undefined) };
    const valid = toolResult.safeParse(answer.result);
    if (!valid.success) return { kind: "failure", ...failureOf(undefined, undefined) };
    return { kind: "result", result: answer.result, isError: valid.data.isError === true };
  } finally {
    end();
  }
}

/**
 * The same call on the process's persistent session with the server: one
 * HTTP exchange when the session is open. A session the server no longer
 * knows (404 to its session id: the call was not run) is replaced and the
 * call sent once more; a session whose exchange failed otherwise is dropped,
 * so the next call starts afresh. The outcomes are those of a fresh session.
 */
async function callInSession(
  c: UpstreamCall & { owner: SessionOwner },
  sessions: UpstreamSessions,
): Promise<UpstreamOutcome> {
  const { exchange: state, timeoutMs, signal, end } = boundedExchange(c);
  try {
    return await currentCall.run(state, async () => {
      for (let attempt = 0; ; attempt++) {
        let session;
        try {
          session = await sessions.session(c, timeoutMs, signal);
        } catch (err) {
          return { kind: "failure", ...failureOf(state.failure.first, err), notSent: true } as const;
        }
        try {
          const raw = await session.client.request(
            { method: "tools/call", params: paramsOf(c) },
            toolResult,
            requestOptions(c, timeoutMs, signal),
          );
          if (state.failure.first)
            return { kind: "failure", ...failureOf(state.failure.first, undefined) } as const;
          return {
            kind: "result",
            result: raw as Record<string, unknown>,
            isError: raw.isError === true,
          } as const;
        } catch (err) {
          if (attempt === 0 && UpstreamSessions.lost(session, err)) {
            sessions.forget(session);
            state.failure.first = undefined;
            state.budget.used = 0;
            continue;
          }
          // A JSON-RPC error answer leaves the session usable; anything else may have broken it.
          if (!(err instanceof McpError) || state.failure.first) sessions.forget(session);
          return { kind: "failure", ...failureOf(state.failure.first, err) } as const;
        }
      }
    });
  } finally {
    end();
  }
}
