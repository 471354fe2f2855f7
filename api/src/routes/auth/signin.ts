import { createHmac } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { verifyPassword } from "../../accounts/password-hash.js";
import { userByEmail } from "../../accounts/users.js";
import type { ApiContext } from "../../context.js";
import { enforceLimits, type Hit } from "../../rate-limits/counter.js";
import { ipSubjects } from "../../rate-limits/client-ip.js";
import {
  cookieValue,
  KNOWN_BROWSER_COOKIE,
  setKnownBrowserCookie,
  setSessionCookie,
} from "../../sessions/cookie.js";
import { createSession, csrfTokenOf } from "../../sessions/store.js";
import { emailSchema, typed } from "../../http/shared.js";
import { sessionJson } from "./session-json.js";

/**
 * Marks a browser that signed in to this account under its current password:
 * such a browser is not counted against the per-address sign-in limit (SPEC
 * 8.1), so an attacker guessing one address cannot lock its owner out. It
 * changes with the password hash, so it never outlives a password change.
 */
export function knownBrowserMark(hashKey: Buffer, userId: string, passwordHash: string): string {
  return createHmac("sha256", hashKey).update(`known:${userId}:${passwordHash}`).digest("base64url");
}

const refused = () => new ServiceError("INVALID_CREDENTIALS", "wrong e-mail address or password");

/** POST /auth/signin: one INVALID_CREDENTIALS answer for every refusal (SPEC 5.5). */
export async function signinRoute(app: FastifyInstance, ctx: ApiContext) {
  typed(app).post(
    "/auth/signin",
    { schema: { body: z.strictObject({ email: emailSchema, password: z.string().max(256) }) } },
    async (request, reply) => {
      const { email, password } = request.body;
      const user = await userByEmail(ctx.pool, email);
      const net = ipSubjects(request.clientAddress);
      const hits: Hit[] = [
        { name: "signinPerIp", subject: net.ip },
        { name: "signinPerEmailAndIp", subject: `${email}|${net.ip}` },
      ];
      if (net.net48) hits.push({ name: "signinPerIpv6Net48", subject: net.net48 });
      const known =
        user &&
        cookieValue(request, KNOWN_BROWSER_COOKIE) ===
          knownBrowserMark(ctx.keyHashSecret, user.id, user.password_hash);
      if (!known) hits.push({ name: "signinPerEmail", subject: email });
      await enforceLimits(ctx.pool, hits);

      const ok = await verifyPassword(password, user?.password_hash);
      if (!user || !ok || user.disabled_at || !user.email_verified_at) throw refused();
      const { rows } = await ctx.pool.query<{ organization_id: string }>(
        "select organization_id from memberships where user_id = $1 order by created_at limit 1",
        [user.id],
      );
      const { token, row } = await createSession(ctx.pool, user.id, rows[0]?.organization_id ?? null);
      setSessionCookie(reply, token);
      setKnownBrowserCookie(reply, knownBrowserMark(ctx.keyHashSecret, user.id, user.password_hash));
      return { session: sessionJson(user, row, csrfTokenOf(ctx.keyHashSecret, token)) };
    },
  );
}
