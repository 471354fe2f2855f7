/**
 * `authorizeAction`: POST {gatewayUrl}/v1/authorize (SPEC 4.1 rule 6). Key,
 * URL and request are checked before anything is sent; every decision comes
 * back as a result; only the transport failures of SPEC 7.4 throw.
 */
import { checkApiKey } from "./api-key.js";
import {
  ServiceAuthError,
  ServiceHttpError,
  ServiceRateLimitedError,
  ServiceUnavailableError,
} from "./errors.js";
import { authorizeRefusalSchema } from "@countersign/protocol/wire";
import { checkGatewayUrl, endpoint } from "./gateway-url.js";
import { checkRequest, type AuthorizeRequest } from "./request.js";
import { readResult, type AuthorizeResult } from "./result.js";
import { postJson, type HttpAnswer } from "./transport.js";

export interface AuthorizeActionOptions extends AuthorizeRequest {
  gatewayUrl: string;
  apiKey: string;
  /** The whole exchange; default 30 s plus the wait asked for. */
  timeoutMs?: number;
}

const BASE_TIMEOUT_MS = 30_000;

export async function authorizeAction(opts: AuthorizeActionOptions): Promise<AuthorizeResult> {
  const apiKey = checkApiKey(opts.apiKey);
  const base = checkGatewayUrl(opts.gatewayUrl);
  const checked = checkRequest(opts);
  if (!checked.ok) return checked.refusal;
  const timeoutMs = opts.timeoutMs ?? BASE_TIMEOUT_MS + (opts.waitSeconds ?? 0) * 1000;
  const answer = await postJson(
    endpoint(base, "v1/authorize"),
    { authorization: `Bearer ${apiKey}` },
    JSON.stringify(checked.body),
    timeoutMs,
  );
  return interpret(answer);
}

function interpret(answer: HttpAnswer): AuthorizeResult {
  const { status } = answer;
  if (status >= 300 && status < 400) {
    const location = typeof answer.headers.location === "string" ? answer.headers.location : null;
    throw new ServiceHttpError(
      `the Gateway URL answered a redirect (HTTP ${status}); redirects are never followed`,
      { httpStatus: status, location },
    );
  }
  const body = parseJson(answer.text);
  if (status === 200) return readResult(body);
  // An answer with `allowed` false in the Gateway's wire (protocol/src/wire/gateway), or undefined.
  const refusal = authorizeRefusalSchema.safeParse(body).data;
  if (status === 400) {
    // The Gateway's invalid_request answers are decisions; a 400 from anything else is not.
    if (refusal) return readResult(body);
    throw new ServiceHttpError("HTTP 400 that is not a Gateway answer", { httpStatus: status });
  }
  if (status === 401)
    throw new ServiceAuthError("UNAUTHORIZED", "the Gateway refused the API key (HTTP 401)");
  if (status === 429)
    throw new ServiceRateLimitedError(
      "too many requests for this key (HTTP 429)",
      retryAfter(answer, refusal?.retry_after_seconds) ?? 1,
    );
  if (status === 503 && refusal) {
    // The Gateway says it could not decide now; it recorded nothing.
    const code = refusal.code;
    throw new ServiceUnavailableError(
      code,
      `the Gateway cannot decide now (${code}); nothing was recorded, retry later`,
      {
        outcomeUnknown: false,
        retryAfterSeconds: retryAfter(answer, refusal.retry_after_seconds),
      },
    );
  }
  if (status >= 500) {
    throw new ServiceUnavailableError(
      "HTTP_ERROR",
      `HTTP ${status} from the Gateway URL; the outcome is unknown`,
      { outcomeUnknown: true, retryAfterSeconds: retryAfter(answer, refusal?.retry_after_seconds) },
    );
  }
  throw new ServiceHttpError(`HTTP ${status} from the Gateway URL`, { httpStatus: status });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function retryAfter(answer: HttpAnswer, member: number | undefined): number | null {
  const header = Number(answer.headers["retry-after"]);
  if (Number.isFinite(header) && header >= 0) return header;
  return member ?? null;
}
