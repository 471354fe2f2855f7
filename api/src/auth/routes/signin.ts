import type { FastifyInstance } from "fastify";
import { ServiceError } from "@countersign/protocol/errors";
import { sessionAnswerSchema, signinSchema } from "@countersign/protocol/wire";
import { verifyPassword } from "../../accounts/password-hash.js";
import { userByEmail } from "../../accounts/users-store.js";
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
import { typed } from "../../http/shared.js";
import { knownBrowserMark } from "../known-browser.js";
import { sessionJson } from "../session-json.js";
import { firstOrganizationOf } from "../store.js";

const refused = () => new ServiceError("INVALID_CREDENTIALS", "wrong e-mail address or password");

/** POST /auth/signin: one INVALID_CREDENTIALS answer for every refusal. */
export async function signinRoute(app: FastifyInstance, ctx: ApiContext) {
  typed(app).post(
    "/auth/signin",
    { schema: { body: signinSchema, response: { 200: sessionAnswerSchema } } },
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
      const orgId = await firstOrganizationOf(ctx.pool, user.id);
      const { token, row } = await createSession(ctx.pool, user.id, orgId);
      setSessionCookie(reply, token);
      setKnownBrowserCookie(reply, knownBrowserMark(ctx.keyHashSecret, user.id, user.password_hash));
      return { session: sessionJson(user, row, csrfTokenOf(ctx.keyHashSecret, token)) };
    },
  );
}
