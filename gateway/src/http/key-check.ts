import type { FastifyRequest } from "fastify";
import { authenticateKey, bearerKey, type AuthenticatedKey } from "@countersign/core/keys";
import { isDatabaseUnavailable, statement } from "@countersign/core/store";
import { inSpan } from "@countersign/core/telemetry";
import type { GatewayContext } from "../context.js";

/** Per-key token bucket of SPEC 8.2, shared by every replica (take_tokens, migration 0003). */
export const BUCKET = { burst: 120, refillPerSecond: 20 } as const;

const TAKE_TOKENS = statement("take_tokens", "select take_tokens($1, $2, $3, $4) as wait");

export type KeyCheck =
  | { ok: true; key: AuthenticatedKey }
  | { ok: false; refusal: "unauthorized" }
  | { ok: false; refusal: "rate_limited"; waitSeconds: number }
  | { ok: false; refusal: "unavailable" };

/**
 * The HTTP-level checks both Gateway endpoints start with (SPEC 5.4, 8.2):
 * the gateway key (one query, every condition of 5.4, one answer for every
 * reason) and `cost` tokens of the key's bucket (a JSON-RPC batch costs one
 * per message). Each endpoint renders the refusal in its own protocol.
 */
export async function checkGatewayKey(ctx: GatewayContext, request: FastifyRequest, cost: number): Promise<KeyCheck> {
  const text = bearerKey(request.headers.authorization);
  try {
    const auth = text
      ? await inSpan("gateway.authenticate", () => authenticateKey(ctx.pool, ctx.keyHashSecret, text, "gateway"))
      : ({ ok: false, reason: "malformed" } as const);
    if (!auth.ok) {
      ctx.metrics.refusedRequests.inc({ reason: auth.reason });
      request.log.info({ reason: auth.reason }, "gateway key refused");
      return { ok: false, refusal: "unauthorized" };
    }
    const { rows } = await inSpan("gateway.rate_limit", () =>
      ctx.pool.query<{ wait: number }>(TAKE_TOKENS.with([auth.key.id, cost, BUCKET.burst, BUCKET.refillPerSecond])),
    );
    const wait = rows[0]?.wait ?? 0;
    if (wait > 0) {
      ctx.metrics.refusedRequests.inc({ reason: "rate_limited" });
      return { ok: false, refusal: "rate_limited", waitSeconds: wait };
    }
    return { ok: true, key: auth.key };
  } catch (err) {
    if (isDatabaseUnavailable(err)) return { ok: false, refusal: "unavailable" };
    throw err;
  }
}
