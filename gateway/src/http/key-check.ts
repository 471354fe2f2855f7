import type { FastifyRequest } from "fastify";
import type { AuthenticatedKey } from "@countersign/core/keys";
import { bearerKey } from "@countersign/core/keys";
import type { DecisionContext } from "@countersign/core/decision";
import { isDatabaseUnavailable } from "@countersign/core/store";
import { inSpan } from "@countersign/core/telemetry";
import type { GatewayContext } from "../context.js";

export type KeyCheck =
  | { ok: true; key: AuthenticatedKey; context: DecisionContext | undefined }
  | { ok: false; refusal: "unauthorized" }
  | { ok: false; refusal: "rate_limited"; waitSeconds: number }
  | { ok: false; refusal: "unavailable" };

/**
 * The HTTP-level checks both Gateway endpoints start with (SPEC 5.4, 8.2):
 * the gateway key (every condition of 5.4, one answer for every reason) and
 * `cost` tokens of the key's bucket (a JSON-RPC batch costs one per message),
 * in one round trip that also reads the decision context when the call's
 * tool is already known, or none when the process admits the call warm
 * (core/src/decision/warm-admission.ts: the endpoint then runs the request
 * again with `fresh` if its decision throws StaleAdmission). Each endpoint
 * renders the refusal in its own protocol.
 */
export async function checkGatewayKey(
  ctx: GatewayContext,
  request: FastifyRequest,
  cost: number,
  intent: { tool: string; idempotencyKey: string | null } | null = null,
  /** Read, never admitted warm: the run after a StaleAdmission. */
  fresh = false,
): Promise<KeyCheck> {
  const text = bearerKey(request.headers.authorization);
  try {
    const admission = text
      ? await inSpan("gateway.admission", () =>
          ctx.decisions.admit(ctx.keyHashSecret, text, cost, intent, fresh),
        )
      : ({ check: { ok: false, reason: "malformed" }, waitSeconds: 0, context: undefined } as const);
    const auth = admission.check;
    if (!auth.ok) {
      ctx.metrics.refusedRequests.inc({ reason: auth.reason });
      request.log.info({ reason: auth.reason }, "gateway key refused");
      return { ok: false, refusal: "unauthorized" };
    }
    if (admission.waitSeconds > 0) {
      ctx.metrics.refusedRequests.inc({ reason: "rate_limited" });
      return { ok: false, refusal: "rate_limited", waitSeconds: admission.waitSeconds };
    }
    ctx.metrics.admissions.inc({ admission: admission.context?.warm ? "warm" : "read" });
    return { ok: true, key: auth.key, context: admission.context };
  } catch (err) {
    if (isDatabaseUnavailable(err)) return { ok: false, refusal: "unavailable" };
    throw err;
  }
}
