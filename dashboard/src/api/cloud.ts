/**
 * The dashboard's one Cloud API client: `@countersign/client/cloud` on this origin (baseUrl "",
 * the session cookie sent same-origin). Every answer is validated by the schema of
 * `@countersign/protocol/wire` the resource module passes; errors are CloudApiError with the API's
 * code. What the tab adds: X-Service-CSRF on every unsafe request (the browser adds Origin
 * itself), a change refused before it is sent when another tab signed in as someone else
 * (SESSION_CHANGED), and the session ended here when the API answers UNAUTHENTICATED (not on
 * other 401s: a wrong password on an e-mail link is INVALID_CREDENTIALS and ends nothing).
 */
import type { z } from "zod";
import {
  CloudApiError,
  createCloudClient,
  type Method,
  type RequestOptions,
} from "@countersign/client/cloud";
import { DashboardError } from "./errors.js";

interface TabSession {
  userId: string | null;
  csrfToken: string | null;
  /** The account the browser is signed in as now, as every tab marks it (session/account-marker.ts). */
  accountNow: () => string | null;
}
// The account and csrf token this tab loaded with; set by the session provider.
const tab: TabSession = { userId: null, csrfToken: null, accountNow: () => null };

export function setTabSession(s: TabSession): void {
  tab.userId = s.userId;
  tab.csrfToken = s.csrfToken;
  tab.accountNow = s.accountNow;
}

// Told when a request of a signed-in tab is refused UNAUTHENTICATED: the session ended (12 h idle, 7 days).
const sessionEndedListeners = new Set<() => void>();
export function onSessionEnded(listener: () => void): () => void {
  sessionEndedListeners.add(listener);
  return () => void sessionEndedListeners.delete(listener);
}

const safe = (method: string) => method === "GET" || method === "HEAD";

const client = createCloudClient({
  baseUrl: "",
  credentials: "same-origin",
  headers(method): Record<string, string> {
    if (safe(method)) return {};
    // A change meant for the account this tab shows is never carried out with another's cookie.
    if (tab.userId && tab.accountNow() !== tab.userId)
      throw new DashboardError("SESSION_CHANGED", "the signed-in account changed in another tab", 409);
    return tab.csrfToken ? { "x-service-csrf": tab.csrfToken } : {};
  },
});

function watched<T>(answer: Promise<T>): Promise<T> {
  return answer.catch((err: unknown) => {
    if (err instanceof CloudApiError && err.code === "UNAUTHENTICATED" && tab.userId)
      for (const listener of sessionEndedListeners) listener();
    throw err;
  });
}

/** What the resource modules call: a request validated by its answer schema, a file's bytes. */
export const cloud = {
  request<S extends z.ZodType>(method: Method, path: string, answer: S, options?: RequestOptions) {
    return watched(client.request(method, path, answer, options));
  },
  download(path: string) {
    return watched(client.download(path));
  },
};
