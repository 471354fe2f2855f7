import { errorBodySchema } from "@countersign/protocol/wire";

/**
 * A Cloud API request that did not give the answer asked for: the API's error body (SPEC 7.1) with
 * its code, or one of the client's own codes: NETWORK_ERROR (no answer), ABORTED (the caller's
 * signal stopped it), INVALID_ANSWER (a 2xx answer its schema refuses), HTTP_<status> (an error
 * answer without the API's error body, as a proxy's page).
 */
export class CloudApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly requestId?: string,
    readonly retryAfterSeconds?: number,
    /** What failed underneath (the fetch error of a NETWORK_ERROR or ABORTED): never shown, kept for logs. */
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "CloudApiError";
  }
}

/** The error a non-2xx answer carries: its error body when it has one. */
export function errorOf(status: number, headers: Headers, text: string): CloudApiError {
  const requestId = headers.get("x-request-id") ?? undefined;
  const retry = Number(headers.get("retry-after"));
  const retryAfterSeconds =
    Number.isFinite(retry) && retry >= 0 && headers.has("retry-after") ? retry : undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const body = errorBodySchema.safeParse(json);
  if (body.success) {
    const { code, message, details } = body.data.error;
    return new CloudApiError(status, code, message, details, requestId, retryAfterSeconds);
  }
  return new CloudApiError(
    status,
    `HTTP_${status}`,
    `unexpected HTTP status ${status}`,
    undefined,
    requestId,
    retryAfterSeconds,
  );
}
