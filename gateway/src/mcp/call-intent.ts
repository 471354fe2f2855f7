import type { DecisionContext } from "@countersign/core/decision";
import { callMeta } from "./meta.js";

/** What a POST's single tools/call is about, known before the key check. */
export interface CallIntent {
  tool: string;
  idempotencyKey: string | null;
}

/** The decision context the key check read for a call's intent. */
export interface AdmittedContext {
  intent: CallIntent;
  context: DecisionContext | undefined;
  /** The run after a StaleAdmission whose warm write lost to another request with the same idempotency key. */
  raced?: boolean;
}

/**
 * The intent of a body that is one JSON-RPC tools/call naming its tool, so
 * the key check reads the decision context in its own round trip (as
 * /v1/authorize does); null for anything else (a batch, another method, a
 * malformed call), which the SDK answers as before. The call uses the
 * context only when it names the same tool and idempotency key.
 */
export function callIntentOf(body: unknown): CallIntent | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
  const b = body as { method?: unknown; params?: unknown };
  if (b.method !== "tools/call" || typeof b.params !== "object" || b.params === null) return null;
  const p = b.params as { name?: unknown; _meta?: unknown };
  if (typeof p.name !== "string") return null;
  const meta =
    typeof p._meta === "object" && p._meta !== null && !Array.isArray(p._meta)
      ? callMeta(p._meta as Record<string, unknown>)
      : callMeta(undefined);
  return { tool: p.name, idempotencyKey: meta.ok ? meta.idempotencyKey : null };
}

/** The admitted context, when it was read for this very call. */
export function contextFor(
  admitted: AdmittedContext | undefined,
  tool: string,
  idempotencyKey: string | null,
): DecisionContext | undefined {
  if (!admitted || admitted.intent.tool !== tool || admitted.intent.idempotencyKey !== idempotencyKey)
    return undefined;
  return admitted.context;
}
