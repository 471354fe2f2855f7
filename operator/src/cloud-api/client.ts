// The operator's Cloud API client: JSON over HTTP(S) to {apiUrl}/api/v1, authenticated with the
// operator's ServiceAccount token (the api reviews it through TokenReview, docs/access.md). The
// token is read for each request and never logged; errors carry the spec's code and message only.
// Every request of every reconciler goes through one RequestBudget (budget.ts) and one
// CloudApiHealth (health.ts), which it asks to probe when it got no answer; both are shared by the
// copies `managing` makes. A 429, or a 503 with
// `Retry-After`, pauses the whole budget for the time asked and the request is sent again (the
// Cloud API changed nothing, SPEC 8.1 and 7), at most `maxAttempts` times in all.

import { MANAGED_BY_HEADER, formatManagedBy, type ManagedBy } from "@countersign/protocol/wire";
import { RequestBudget } from "./budget.js";
import { CloudApiHealth, ProbeRefused } from "./health.js";

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
  /** The operator's one request budget (default: a new one, sized by `defaultBudget`). */
  budget?: RequestBudget;
  /** The operator's one view of whether the Cloud API answers (default: a new one, not probing). */
  health?: CloudApiHealth;
  /** Sends of one request at most, the first included, when the Cloud API asks to retry later. */
  maxAttempts?: number;
}

/** A `Retry-After` longer than this is not waited for within one request: the work queue retries. */
const MAX_RETRY_AFTER_MS = 60_000;

export class CloudApiClient {
  private readonly options: CloudApiClientOptions & { budget: RequestBudget; health: CloudApiHealth };

  constructor(options: CloudApiClientOptions) {
    this.options = {
      ...options,
      budget: options.budget ?? new RequestBudget(),
      health: options.health ?? new CloudApiHealth({ baseUrl: options.baseUrl }),
    };
  }

  get health(): CloudApiHealth {
    return this.options.health;
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const maxAttempts = this.options.maxAttempts ?? 3;
    for (let attempt = 1; ; attempt++) {
      const answer = await this.send(method, path, body);
      const retryAfterMs = retryAfterOf(answer);
      if (retryAfterMs !== undefined) this.options.budget.pauseFor(retryAfterMs);
      if (retryAfterMs !== undefined && attempt < maxAttempts && retryAfterMs <= MAX_RETRY_AFTER_MS) continue;
      return answerOf<T>(answer);
    }
  }

  /** One send, after a token of the budget; no answer (or 502-504) has the health probe at once. */
  private async send(method: string, path: string, body: unknown): Promise<Answer> {
    const { health } = this.options;
    // While the probe sees the Cloud API down, nothing is sent: the probe sees it come back.
    if (health.outage !== undefined && health.probing) throw outageError(health.outage);
    await this.options.budget.take();
    const token = await this.options.token();
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (this.options.managedBy && method !== "GET")
      headers[MANAGED_BY_HEADER] = formatManagedBy(this.options.managedBy);
    try {
      const res = await fetch(new URL(`/api/v1${path}`, this.options.baseUrl), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 15_000),
      });
      const text = await res.text();
      if (res.status >= 502 && res.status <= 504) health.suspect();
      return { status: res.status, headers: res.headers, text };
    } catch (error) {
      health.suspect();
      throw new CloudApiUnavailableError(error);
    }
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

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** How long the Cloud API asked to wait: a 429, or a 503 with `Retry-After` (SPEC 7). */
function retryAfterOf(answer: Answer): number | undefined {
  if (answer.status !== 429 && answer.status !== 503) return undefined;
  const header = answer.headers.get("retry-after");
  const seconds = header !== null && /^\d+$/.test(header.trim()) ? Number(header.trim()) : undefined;
  if (seconds !== undefined) return seconds * 1000;
  // A 429 always means "later", even without the header; a 503 without it is not a retry hint.
  return answer.status === 429 ? 1000 : undefined;
}

function outageError(outage: unknown): Error {
  if (outage instanceof ProbeRefused)
    return new CloudApiError(
      outage.status,
      "SERVICE_UNAVAILABLE",
      `the Cloud API cannot serve now (it answered ${outage.status})`,
    );
  return new CloudApiUnavailableError(outage);
}

function answerOf<T>({ status, text }: Answer): T {
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (status < 200 || status > 299) {
    const error = (
      parsed as { error?: { code?: string; message?: string; details?: Record<string, unknown> } } | undefined
    )?.error;
    throw new CloudApiError(
      status,
      error?.code ?? "HTTP_ERROR",
      error?.message ?? `HTTP ${status}`,
      error?.details,
    );
  }
  return parsed as T;
}
