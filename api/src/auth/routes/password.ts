import type { FastifyInstance } from "fastify";
import { noContentSchema, passwordChangeSchema } from "@countersign/protocol/wire";
import { withCurrentPassword } from "../../accounts/current-password.js";
import { hashPassword } from "../../accounts/password-hash.js";
import type { ApiContext } from "../../context.js";
import { enforceLimits } from "../../rate-limits/counter.js";
import { setKnownBrowserCookie } from "../../sessions/cookie.js";
import { sessionOf, typed } from "../../http/shared.js";
import { knownBrowserMark } from "../known-browser.js";
import { changePassword } from "../change-password.js";

/** POST /auth/password: the current password is required; every other browser is signed out. */
export async function passwordRoute(app: FastifyInstance, ctx: ApiContext) {
  typed(app).post(
    "/auth/password",
    { schema: { body: passwordChangeSchema, response: { 204: noContentSchema } } },
    async (request, reply) => {
      const s = sessionOf(request);
      await enforceLimits(ctx.pool, [{ name: "passwordChangePerUser", subject: s.userId }]);
      const user = await withCurrentPassword(ctx.pool, s.userId, request.body.current_password);
      const hash = await hashPassword(request.body.new_password);
      await changePassword(ctx, request.log, {
        userId: s.userId,
        email: user.email,
        keepSessionId: s.sessionId,
        passwordHash: hash,
      });
      setKnownBrowserCookie(reply, knownBrowserMark(ctx.keyHashSecret, s.userId, hash));
      return reply.code(204).send();
    },
  );
}
