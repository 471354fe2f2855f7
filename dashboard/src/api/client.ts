/**
 * The one client of the Cloud API (same origin, under /api/v1). It adds X-Service-CSRF to every
 * unsafe request (the browser adds Origin itself), turns error bodies into DashboardError with
 * the API's code, and transport failures into the browser-side codes of SPEC 7.4.
 */
import { currentAccount } from "../session/account-marker.js";
import { DashboardError } from "./errors.js";

export const API_PREFIX = "/api/v1";

interface TabSession {
  userId: string | null;
  csrfToken: string | null;
}
// The account and csrf token this tab loaded with; set by the session provider.
const tab: TabSession = { userId: null, csrfToken: null };

export function setTabSession(s: TabSession): void {
  tab.userId = s.userId;
  tab.csrfToken = s.csrfToken;
}

// Told when a request of a signed-in tab is refused UNAUTHENTICATED: the session ended (12 h idle, 7 days).
const sessionEndedListeners = new Set<() => void>();
export function onSessionEnded(listener: () => void): () => void {
  sessionEndedListeners.add(listener);
  return () => void sessionEndedListeners.delete(listener);
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Sign-in and the e-mail link pages act before (or without) an account of this tab. */
  anonymous?: boolean;
}

export async function apiRequest<T>(
  method: string,
  path: string,
  body?: unknown,
  opts: RequestOptions = {},
): Promise<T> {
  const unsafe = method !== "GET" && method !== "HEAD";
  if (unsafe && !opts.anonymous && tab.userId && currentAccount() !== tab.userId) {
    throw new DashboardError("SESSION_CHANGED", "the signed-in account changed in another tab", 409);
  }
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (unsafe && tab.csrfToken) headers["x-service-csrf"] = tab.csrfToken;
  let res: Response;
  try {
    res = await fetch(`${API_PREFIX}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
      signal: opts.signal,
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError")
      throw new DashboardError("ABORTED", "the request was aborted");
    throw new DashboardError("NETWORK_ERROR", "the service could not be reached");
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text().catch(() => undefined);
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (res.ok) {
    if (parsed === undefined || typeof parsed !== "object" || parsed === null) {
      throw new DashboardError(
        "INVALID_RESPONSE",
        "the answer is not the JSON the dashboard expects",
        res.status,
      );
    }
    return parsed as T;
  }
  const error = (parsed as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)
    ?.error;
  if (error && typeof error.code === "string") {
    if (error.code === "UNAUTHENTICATED" && !opts.anonymous && tab.userId)
      for (const l of sessionEndedListeners) l();
    throw new DashboardError(
      error.code,
      typeof error.message === "string" ? error.message : error.code,
      res.status,
      error.details as Record<string, unknown> | undefined,
    );
  }
  throw new DashboardError(`HTTP_${res.status}`, `unexpected HTTP status ${res.status}`, res.status);
}

/** Fetches a file (a receipt bundle) as exact bytes, with the same error handling. */
export async function apiDownload(path: string): Promise<{ bytes: Uint8Array; headers: Headers }> {
  let res: Response;
  try {
    res = await fetch(`${API_PREFIX}${path}`, { credentials: "same-origin" });
  } catch {
    throw new DashboardError("NETWORK_ERROR", "the service could not be reached");
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => undefined)) as
      { error?: { code?: string; message?: string } } | undefined;
    if (body?.error?.code)
      throw new DashboardError(body.error.code, body.error.message ?? body.error.code, res.status);
    throw new DashboardError(`HTTP_${res.status}`, `unexpected HTTP status ${res.status}`, res.status);
  }
  return { bytes: new Uint8Array(await res.arrayBuffer()), headers: res.headers };
}

export const api = {
  get: <T>(path: string, opts?: RequestOptions) => apiRequest<T>("GET", path, undefined, opts),
  post: <T>(path: string, body?: unknown, opts?: RequestOptions) =>
    apiRequest<T>("POST", path, body ?? {}, opts),
  patch: <T>(path: string, body: unknown, opts?: RequestOptions) => apiRequest<T>("PATCH", path, body, opts),
  put: <T>(path: string, body: unknown, opts?: RequestOptions) => apiRequest<T>("PUT", path, body, opts),
  delete: <T>(path: string, opts?: RequestOptions) => apiRequest<T>("DELETE", path, undefined, opts),
};

// The policy routes, kept in their own file.
export * from "./policies.js";
