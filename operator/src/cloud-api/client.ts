// The operator's Cloud API client: JSON over HTTP(S) to {apiUrl}/api/v1, authenticated with the
// operator's ServiceAccount token (the api reviews it through TokenReview, docs/access.md). The
// token is read for each request and never logged; errors carry the spec's code and message only.

import { MANAGED_BY_HEADER, formatManagedBy, type ManagedBy } from "@countersign/protocol/wire";

export class CloudApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    /** The answer's `error.message`, as the Cloud API wrote it. */
    readonly apiMessage: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(`${status} ${code}: ${apiMessage}`);
    this.name = "CloudApiError";
  }
}

/** The Cloud API did not answer at all (connection refused, reset, DNS, timeout). */
export class CloudApiUnavailableError extends Error {
  constructor(override readonly cause: unknown) {
    const detail =
      (cause as { cause?: { code?: unknown } })?.cause?.code ?? (cause as { name?: unknown })?.name;
    super(`the Cloud API did not answer${detail ? ` (${String(detail)})` : ""}`);
    this.name = "CloudApiUnavailableError";
  }
}

export interface CloudApiClientOptions {
  baseUrl: string;
  /** Returns the bearer token for the next request. */
  token: () => Promise<string> | string;
  timeoutMs?: number;
  /** The custom resource named on every write (Countersign-Managed-By), so the record shows it. */
  managedBy?: ManagedBy;
}

export class CloudApiClient {
  constructor(private readonly options: CloudApiClientOptions) {}

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const token = await this.options.token();
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (this.options.managedBy && method !== "GET")
      headers[MANAGED_BY_HEADER] = formatManagedBy(this.options.managedBy);
    let res: Response;
    let text: string;
    try {
      res = await fetch(new URL(`/api/v1${path}`, this.options.baseUrl), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 15_000),
      });
      text = await res.text();
    } catch (error) {
      throw new CloudApiUnavailableError(error);
    }
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!res.ok) {
      const error = (
        parsed as
          { error?: { code?: string; message?: string; details?: Record<string, unknown> } } | undefined
      )?.error;
      throw new CloudApiError(
        res.status,
        error?.code ?? "HTTP_ERROR",
        error?.message ?? `HTTP ${res.status}`,
        error?.details,
      );
    }
    return parsed as T;
  }

  /** The same client writing as the reconciler of one custom resource. */
  managing(managedBy: ManagedBy): CloudApiClient {
    return new CloudApiClient({ ...this.options, managedBy });
  }

  get = <T>(path: string) => this.request<T>("GET", path);
  post = <T>(path: string, body?: unknown) => this.request<T>("POST", path, body ?? {});
  patch = <T>(path: string, body: unknown) => this.request<T>("PATCH", path, body);
  put = <T>(path: string, body: unknown) => this.request<T>("PUT", path, body);
  delete = <T>(path: string) => this.request<T>("DELETE", path);
}
