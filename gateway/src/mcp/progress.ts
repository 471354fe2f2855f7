import type { Progress, ProgressToken, ServerNotification } from "@modelcontextprotocol/sdk/types.js";

/** Sends a notification to the caller on its POST's response stream (SSE), related to its tools/call. */
export type Notify = (notification: ServerNotification) => Promise<void>;

/**
 * Whether a POST's body (one message or a batch) holds a tools/call that asked
 * for progress: the SDK's transport then answers it on an SSE stream, which
 * can carry the progress, instead of one JSON body, which cannot.
 */
export function asksForProgress(body: unknown): boolean {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.some((m) => {
    const call = m as { method?: unknown; params?: { _meta?: unknown } } | null;
    if (typeof call !== "object" || call === null || call.method !== "tools/call") return false;
    const meta = call.params?._meta;
    return (
      typeof meta === "object" &&
      meta !== null &&
      progressTokenOf(meta as Record<string, unknown>) !== undefined
    );
  });
}

/** The caller's `progressToken` (MCP: a string or a number in the request's `_meta`), if it asked for progress. */
export function progressTokenOf(meta: Record<string, unknown> | undefined): ProgressToken | undefined {
  const token = meta?.progressToken;
  return typeof token === "string" || (typeof token === "number" && Number.isFinite(token))
    ? token
    : undefined;
}

/**
 * Progress relayed (docs/gateway.md, "Progress"): each progress notification
 * the upstream sends for the call goes to the caller at once, under the
 * caller's own token (the upstream saw only the Gateway's), with the
 * upstream's progress, total and message. Undefined when the caller asked for
 * none or cannot be sent notifications. A caller that left misses the rest;
 * the call goes on.
 */
export function progressRelay(
  meta: Record<string, unknown> | undefined,
  notify: Notify | undefined,
): ((progress: Progress) => void) | undefined {
  const progressToken = progressTokenOf(meta);
  if (progressToken === undefined || !notify) return undefined;
  return (p) => {
    const params = {
      progressToken,
      progress: p.progress,
      ...(p.total !== undefined ? { total: p.total } : {}),
      ...(p.message !== undefined ? { message: p.message } : {}),
    };
    notify({ method: "notifications/progress", params }).catch(() => undefined);
  };
}
