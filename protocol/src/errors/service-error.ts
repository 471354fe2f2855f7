import { httpStatusOf, type CloudApiCode } from "./cloud-api-codes.js";

/** One issue of a refused body or query (SPEC 7.1): never the submitted value. */
export interface Issue {
  path: string;
  code: string;
  message: string;
}

export type ErrorDetails = Record<string, unknown> & { issues?: Issue[] };

/**
 * The one error type of the Cloud API: thrown anywhere, rendered by the error
 * handler as `{error: {code, message, details?}}` with the code's HTTP status.
 */
export class ServiceError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: CloudApiCode,
    message: string,
    readonly details?: ErrorDetails,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ServiceError";
    this.status = httpStatusOf(code);
    this.headers = headers;
  }

  toBody(): { error: { code: CloudApiCode; message: string; details?: ErrorDetails } } {
    return {
      error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) },
    };
  }
}
