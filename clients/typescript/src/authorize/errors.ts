/**
 * The client errors of SPEC 7.4. Decisions are results, never errors: these
 * are thrown only when no Gateway decision could be read (a key that cannot
 * be sent, a transport failure, an answer that is not the Gateway's).
 */
export type ServiceErrorCode =
  | "MALFORMED_API_KEY"
  | "UNAUTHORIZED"
  | "RATE_LIMITED"
  | "DATABASE_UNAVAILABLE"
  | "GATEWAY_SHUTTING_DOWN"
  | "GATEWAY_BUSY"
  | "RPC_UNAVAILABLE"
  | "NETWORK_ERROR"
  | "TIMEOUT"
  | "HTTP_ERROR"
  | "NOT_A_SERVICE_RESULT"
  | "TOO_MANY_PAGES"
  | (string & {});

export class ServiceError extends Error {
  readonly code: ServiceErrorCode;
  constructor(code: ServiceErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ServiceError";
    this.code = code;
  }
}

/** `MALFORMED_API_KEY` (nothing sent) or `UNAUTHORIZED` (the Gateway answered 401). */
export class ServiceAuthError extends ServiceError {
  constructor(code: "MALFORMED_API_KEY" | "UNAUTHORIZED", message: string) {
    super(code, message);
    this.name = "ServiceAuthError";
  }
}

/** 429: wait `retryAfterSeconds` before asking again. */
export class ServiceRateLimitedError extends ServiceError {
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number) {
    super("RATE_LIMITED", message);
    this.name = "ServiceRateLimitedError";
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * The Gateway could not be reached or could not decide now. When
 * `outcomeUnknown` is true the request may have been processed: retry only
 * with the same idempotency key, so a repeat answers for the same action.
 */
export class ServiceUnavailableError extends ServiceError {
  readonly outcomeUnknown: boolean;
  readonly retryAfterSeconds: number | null;
  constructor(
    code: ServiceErrorCode,
    message: string,
    opts: { outcomeUnknown: boolean; retryAfterSeconds?: number | null; cause?: unknown },
  ) {
    super(code, message, { cause: opts.cause });
    this.name = "ServiceUnavailableError";
    this.outcomeUnknown = opts.outcomeUnknown;
    this.retryAfterSeconds = opts.retryAfterSeconds ?? null;
  }
}

/** Another HTTP answer (404, 413, a redirect, never followed), or a URL refused before sending. */
export class ServiceHttpError extends ServiceError {
  readonly httpStatus: number | null;
  readonly location: string | null;
  constructor(message: string, opts: { httpStatus?: number | null; location?: string | null } = {}) {
    super("HTTP_ERROR", message);
    this.name = "ServiceHttpError";
    this.httpStatus = opts.httpStatus ?? null;
    this.location = opts.location ?? null;
  }
}

/** The answer is not a Gateway result; it is never taken for success. */
export class ServiceProtocolError extends ServiceError {
  constructor(message: string) {
    super("NOT_A_SERVICE_RESULT", message);
    this.name = "ServiceProtocolError";
  }
}

/** Thrown only by integrations configured to throw on refusal; `refusal` is the result. */
export class ServiceRefusalError<R = unknown> extends ServiceError {
  readonly refusal: R;
  constructor(code: string, message: string, refusal: R) {
    super(code, message);
    this.name = "ServiceRefusalError";
    this.refusal = refusal;
  }
}
