import type { FastifyRequest } from "fastify";
import { authenticateKey, bearerKey, parseKey, type AuthenticatedKey } from "@countersign/core/keys";
import type { ApiContext } from "../context.js";
import { cookieValue, SESSION_COOKIE } from "../sessions/cookie.js";
import { csrfTokenOf, findSession } from "../sessions/store.js";
import { touchKeyLastUsed } from "./store.js";

/**
 * Who is calling, from the request's credentials. A bearer credential wins
 * over a cookie (a cross-site page cannot set Authorization, so CSRF rules
 * apply to cookies only).
 */
export type Principal =
  | { kind: "anonymous" }
  | {
      kind: "session";
      sessionId: string;
      userId: string;
      email: string;
      emailVerified: boolean;
      csrfToken: string;
      currentOrganizationId: string | null;
      expiresAt: Date;
      idleExpiresAt: Date;
    }
  | { kind: "management_key"; key: AuthenticatedKey }
  /** A gateway key is valid only at the Gateway (SPEC 5.1). */
  | { kind: "gateway_key" }
  | { kind: "operator"; username: string }
  /** A bearer credential that is no valid key or token (reason never given). */
  | { kind: "invalid_credential" };

export async function resolvePrincipal(ctx: ApiContext, request: FastifyRequest): Promise<Principal> {
  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    const text = bearerKey(authorization);
    if (!text) return { kind: "invalid_credential" };
    if (parseKey(text)) {
      const check = await authenticateKey(ctx.pool, ctx.keyHashSecret, text, "management");
      if (check.ok) {
        // Last-used time, at most once a minute (SPEC 2.2).
        await touchKeyLastUsed(ctx.pool, check.key.id);
        return { kind: "management_key", key: check.key };
      }
      // wrong_kind is only reported once the secret matched: a real gateway key.
      if (check.reason === "wrong_kind") return { kind: "gateway_key" };
      request.log.info({ key_refusal: check.reason }, "management key refused");
      return { kind: "invalid_credential" };
    }
    if (ctx.tokenReviewer) {
      try {
        const username = await ctx.tokenReviewer.review(text);
        if (username) return { kind: "operator", username };
      } catch (err) {
        request.log.warn({ token_review_error: (err as Error).message }, "TokenReview failed");
      }
    }
    return { kind: "invalid_credential" };
  }
  const token = cookieValue(request, SESSION_COOKIE);
  if (token && /^[A-Za-z0-9_-]{43}$/.test(token)) {
    const s = await findSession(ctx.pool, token);
    if (s) {
      return {
        kind: "session",
        sessionId: s.id,
        userId: s.userId,
        email: s.email,
        emailVerified: s.emailVerified,
        csrfToken: csrfTokenOf(ctx.keyHashSecret, token),
        currentOrganizationId: s.currentOrganizationId,
        expiresAt: s.expiresAt,
        idleExpiresAt: s.idleExpiresAt,
      };
    }
  }
  return { kind: "anonymous" };
}

/** The subject of the per-credential rate limit, or undefined for callers without one. */
export function credentialSubject(p: Principal): string | undefined {
  switch (p.kind) {
    case "session":
      return `session:${p.sessionId}`;
    case "management_key":
      return `key:${p.key.id}`;
    case "operator":
      return `operator:${p.username}`;
    default:
      return undefined;
  }
}
