// The operator's Cloud API client: the one Cloud API client (@countersign/client/cloud), every
// answer validated by its wire schema, authenticated with the operator's ServiceAccount token (the
// api reviews it through TokenReview, docs/access.md). The token is read for each request and never
// logged; errors carry the spec's code and message only.
// What the operator adds around it: every request of every reconciler takes a token of one
// RequestBudget (budget.ts) and tells one CloudApiHealth (health.ts) when it got no answer (or
// 502-504), so it probes; both are shared by the copies `managing` makes. A 429, or a 503 with
// `Retry-After`, pauses the whole budget for the time asked and the request is sent again (the
// Cloud API changed nothing, SPEC 8.1 and 7), at most `maxAttempts` times in all.

import { CloudApiError, createCloudClient, type CloudClient, type Method } from "@countersign/client/cloud";
import { MANAGED_BY_HEADER, formatManagedBy, type ManagedBy } from "@countersign/protocol/wire";
import type { z } from "zod";
import { RequestBudget } from "./budget.js";
import { CloudApiHealth, ProbeRefused } from "./health.js";

export { CloudApiError };

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
  private readonly cloud: CloudClient;

  constructor(options: CloudApiClientOptions) {
    const budget = options.budget ?? new RequestBudget();
    const health = options.health ?? new CloudApiHealth({ baseUrl: options.baseUrl });
    this.options = { ...options, budget, health };
    const { token, managedBy } = options;
    this.cloud = createCloudClient({
      baseUrl: options.baseUrl,
      headers: async (method) => ({
        authorization: `Bearer ${await token()}`,
        ...(managedBy && method !== "GET" ? { [MANAGED_BY_HEADER]: formatManagedBy(managedBy) } : {}),
      }),
      fetch: async (input, init) => {
        // While the probe sees the Cloud API down, nothing is sent: the probe sees it come back.
        if (health.outage !== undefined && health.probing) throw outageError(health.outage);
        await budget.take();
        try {
          return await fetch(input, init);
        } catch (error) {
          health.suspect();
          throw error;
        }
      },
      onAnswer: (status) => {
        if (status >= 502 && status <= 504) health.suspect();
      },
    });
  }

  get health(): CloudApiHealth {
    return this.options.health;
  }

  /** `path` under /api/v1; the answer validated by `answer` (a wire schema of @countersign/protocol). */
  async request<S extends z.ZodType>(
    method: Method,
    path: string,
    answer: S,
    body?: unknown,
  ): Promise<z.infer<S>> {
    const maxAttempts = this.options.maxAttempts ?? 3;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.cloud.request(method, path, answer, {
          body,
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 15_000),
        });
      } catch (error) {
        if (!(error instanceof CloudApiError)) throw error;
        // No answer at all: the connection failed, or the operator's own timeout ended the wait.
        if (error.code === "NETWORK_ERROR" || error.code === "ABORTED")
          throw error.cause instanceof CloudApiUnavailableError // refused at once during an outage
            ? error.cause
            : new CloudApiUnavailableError(error.cause ?? error);
        const retryAfterMs = retryAfterOf(error);
        if (retryAfterMs === undefined) throw error;
        this.options.budget.pauseFor(retryAfterMs);
        if (attempt >= maxAttempts || retryAfterMs > MAX_RETRY_AFTER_MS) throw error;
      }
    }
  }

  /** The same client writing as the reconciler of one custom resource. */
  managing(managedBy: ManagedBy): CloudApiClient {
    return new CloudApiClient({ ...this.options, managedBy });
  }

  get = <S extends z.ZodType>(path: string, answer: S) => this.request("GET", path, answer);
  post = <S extends z.ZodType>(path: string, answer: S, body?: unknown) =>
    this.request("POST", path, answer, body ?? {});
  patch = <S extends z.ZodType>(path: string, answer: S, body: unknown) =>
    this.request("PATCH", path, answer, body);
  put = <S extends z.ZodType>(path: string, answer: S, body: unknown) =>
    this.request("PUT", path, answer, body);
  delete = <S extends z.ZodType>(path: string, answer: S) => this.request("DELETE", path, answer);
}

/** How long the Cloud API asked to wait: a 429, or a 503 with `Retry-After` (SPEC 7). */
function retryAfterOf(error: CloudApiError): number | undefined {
  if (error.status !== 429 && error.status !== 503) return undefined;
  if (error.retryAfterSeconds !== undefined) return error.retryAfterSeconds * 1000;
  // A 429 always means "later", even without the header; a 503 without it is not a retry hint.
  return error.status === 429 ? 1000 : undefined;
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
