/**
 * What every answer to a fuzzed request must be, per surface: never a 5xx;
 * a refusal in the spec's shape with a code of the catalog (the Gateway's
 * status and code agreeing, JSON-RPC errors of 7.3, the Cloud API's error
 * body with X-Request-Id and Cache-Control: no-store); a success only where
 * the request could not write anything.
 */
import { cloudApiCodes, gatewayCodes, gatewayStatuses } from "../../protocol/src/errors/index.js";
import type { FuzzRequest } from "./requests.js";
import type { JsonBody } from "../fixtures/json.js";

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

type Body = Record<string, JsonBody>;

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
const isObject = (v: unknown): v is Body => typeof v === "object" && v !== null && !Array.isArray(v);

/** The Gateway's refusal members: `allowed` false, a status of the eleven and a code of that status. */
function gatewayRefusal(b: Body, where: string): string | null {
  if (b.code === "RATE_LIMITED") return null;
  if (!(gatewayStatuses as readonly string[]).includes(b.status))
    return `${where}: status ${JSON.stringify(b.status)} is not one of the eleven`;
  if ((gatewayCodes as Record<string, string>)[b.code] !== b.status)
    return `${where}: code ${JSON.stringify(b.code)} does not belong to status ${b.status}`;
  if (typeof b.detail !== "string") return `${where}: no detail`;
  return null;
}

const JSON_RPC_HTTP_ERRORS = new Set([-32001, -32000, -32600, -32700, -32601, -32602]);

function authorizeProblem(a: Answer): string | null {
  const b = parse(a.text);
  if (!isObject(b) || b.allowed !== false) return "not a refusal with allowed false";
  if (a.status === 200) return "a decision (200) for a request that should have been refused before deciding";
  return gatewayRefusal(b, "body");
}

function rpcMessageProblem(m: unknown, fromSdk: boolean): string | null {
  if (!isObject(m) || m.jsonrpc !== "2.0") return "not a JSON-RPC 2.0 message";
  if ("error" in m) {
    if (!isObject(m.error) || typeof m.error.code !== "number" || typeof m.error.message !== "string")
      return "malformed JSON-RPC error";
    if (m.error.code === -32603) return "-32603 internal error";
    if (!fromSdk && !JSON_RPC_HTTP_ERRORS.has(m.error.code))
      return `JSON-RPC error ${m.error.code} not of SPEC 7.3`;
    return null;
  }
  if (!("result" in m)) return "neither result nor error";
  const service =
    isObject(m.result) && isObject(m.result.structuredContent)
      ? m.result.structuredContent.service
      : undefined;
  if (isObject(service)) {
    if (m.result.isError !== true) return "a refusal without isError";
    return gatewayRefusal(service, "structuredContent.service");
  }
  return null;
}

/** A caller that asked for progress (a `progressToken`) and accepts SSE gets the answer as a stream (Streamable HTTP). */
const isEventStream = (a: Answer): boolean =>
  String(a.headers["content-type"] ?? "").startsWith("text/event-stream");

/** The JSON-RPC messages of an SSE stream: each event's `data` lines joined, parsed. */
function sseMessages(text: string): unknown[] {
  return text
    .split(/\r?\n\r?\n/)
    .map((event) =>
      event
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, ""))
        .join("\n"),
    )
    .filter((data) => data !== "")
    .map(parse);
}

function mcpProblem(r: FuzzRequest, a: Answer): string | null {
  if (a.status === 202 && a.text === "") return null; // notifications only
  const b = parse(a.text);
  // Bytes Node's HTTP parser refused (e.g. OPTIONS with a body): no URL was read, so the Gateway's one shape, and the connection closed.
  if (
    a.status === 400 &&
    a.headers.connection === "close" &&
    isObject(b) &&
    b.allowed === false &&
    b.code === "INVALID_REQUEST"
  )
    return null;
  if (a.status === 200) {
    const messages = isEventStream(a) ? sseMessages(a.text) : Array.isArray(b) ? b : [b];
    if (messages.length === 0) return "an empty answer";
    for (const m of messages) {
      const p = rpcMessageProblem(m, true);
      if (p) return p;
      // A tools/call that ran would carry _meta.service without a refusal: nothing may run here.
      if (
        isObject(m) &&
        isObject(m.result) &&
        m.result.isError !== true &&
        isObject(m.result._meta) &&
        m.result._meta.service
      )
        return "a tool call ran";
    }
    return null;
  }
  if (r.method === "POST" && a.status === 406) return rpcMessageProblem(b, true); // the SDK's Accept check
  return rpcMessageProblem(b, false);
}

function apiProblem(r: FuzzRequest, a: Answer): string | null {
  if (typeof a.headers["x-request-id"] !== "string") return "no X-Request-Id";
  if (a.status < 300) return r.mayPass ? null : `a write answered ${a.status}`;
  if (a.headers["cache-control"] !== "no-store") return "no Cache-Control: no-store";
  const b = parse(a.text);
  if (!isObject(b) || !isObject(b.error) || Object.keys(b).length !== 1) return "not {error: {...}}";
  const { code, message } = b.error;
  if (typeof message !== "string") return "error without message";
  if ((cloudApiCodes as Record<string, number>)[code] !== a.status)
    return `code ${JSON.stringify(code)} with HTTP ${a.status}`;
  if (a.status === 429 && !a.headers["retry-after"]) return "429 without Retry-After";
  return null;
}

/** Null when the answer is as the spec says, else why not. */
export function answerProblem(r: FuzzRequest, a: Answer): string | null {
  if (a.status >= 500) return `HTTP ${a.status}`;
  switch (r.target) {
    case "authorize":
      return authorizeProblem(a);
    case "mcp":
      return mcpProblem(r, a);
    case "api":
      return apiProblem(r, a);
  }
}
