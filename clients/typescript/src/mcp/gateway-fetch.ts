/**
 * The fetch the MCP SDK transport uses to reach the Gateway: it never leaves
 * the Gateway's origin, never follows a redirect, and turns the Gateway's
 * HTTP-level answers (SPEC 7.3) into the errors of SPEC 7.4 before the SDK
 * sees them, so callers get one set of error classes for both protocols.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { jsonRpcErrorAnswerSchema, rpcErrorDataSchema } from "@countersign/protocol/wire";
import {
  ServiceAuthError,
  ServiceHttpError,
  ServiceRateLimitedError,
  ServiceUnavailableError,
} from "../authorize/errors.js";

/** Connection failures that prove nothing reached the Gateway. */
const NOT_SENT = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "ERR_INVALID_URL",
]);

export function gatewayFetch(origin: string, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const target = new URL(String(url));
    if (target.origin !== origin)
      throw new ServiceHttpError(
        `refused to send a request to ${target.origin}, not the Gateway's origin; nothing was sent`,
      );
    let response: Response;
    try {
      response = await base(url, { ...init, redirect: "manual" });
    } catch (err) {
      if (err instanceof Error && err.name === "AbortError") throw err;
      const code = causeCode(err);
      const notSent = code !== null && NOT_SENT.has(code);
      throw new ServiceUnavailableError(
        "NETWORK_ERROR",
        notSent
          ? `could not reach the Gateway (${code}); nothing was sent`
          : "the connection to the Gateway failed; the outcome is unknown",
        { outcomeUnknown: !notSent, cause: err },
      );
    }
    // The SDK probes with GET for a server stream; the stateless Gateway answers 405, which the SDK expects.
    if (init?.method !== "POST") return response;
    const status = response.status;
    if (status >= 300 && status < 400) {
      await response.body?.cancel();
      throw new ServiceHttpError(
        `the Gateway URL answered a redirect (HTTP ${status}); redirects are never followed`,
        {
          httpStatus: status,
          location: response.headers.get("location"),
        },
      );
    }
    if (status < 400) return response;
    const body = await response.json().catch(() => undefined);
    // The Gateway's JSON-RPC error and its `data` (protocol/src/wire/gateway/mcp.ts), or undefined.
    const data = rpcErrorDataSchema.safeParse(jsonRpcErrorAnswerSchema.safeParse(body).data?.error.data).data;
    const retryAfter = retryAfterSeconds(response.headers.get("retry-after"), data?.retry_after_seconds);
    if (status === 401)
      throw new ServiceAuthError("UNAUTHORIZED", "the Gateway refused the API key (HTTP 401)");
    if (status === 429)
      throw new ServiceRateLimitedError("too many requests for this key (HTTP 429)", retryAfter ?? 1);
    if (status === 503 && data?.service) {
      throw new ServiceUnavailableError(
        data.service.code,
        `the Gateway cannot process requests now (${data.service.code}); nothing was recorded`,
        {
          outcomeUnknown: false,
          retryAfterSeconds: retryAfter,
        },
      );
    }
    if (status >= 500)
      throw new ServiceUnavailableError(
        "HTTP_ERROR",
        `HTTP ${status} from the Gateway; the outcome is unknown`,
        { outcomeUnknown: true, retryAfterSeconds: retryAfter },
      );
    throw new ServiceHttpError(`HTTP ${status} from the Gateway`, { httpStatus: status });
  };
}

function causeCode(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return null;
}

function retryAfterSeconds(header: string | null, member: number | undefined): number | null {
  const h = Number(header);
  if (header !== null && Number.isFinite(h) && h >= 0) return h;
  return member ?? null;
}
