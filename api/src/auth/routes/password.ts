import type { FastifyInstance } from "fastify";
import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction } from "@countersign/core/store";
import { noContentSchema, passwordChangeSchema } from "@countersign/protocol/wire";
import { hashPassword, verifyPassword } from "../../accounts/password-hash.js";
import { userById } from "../../accounts/users.js";
import type { ApiContext } from "../../context.js";
import { messages } from "../../mail/messages.js";
import { sendMail } from "../../mail/send.js";
import { enforceLimits } from "../../rate-limits/counter.js";
import { setKnownBrowserCookie } from "../../sessions/cookie.js";
import { deleteOtherSessions } from "../../sessions/store.js";
import { sessionOf, typed } from "../../http/shared.js";
import { knownBrowserMark } from "../known-browser.js";
import { setPasswordHash } from "../store.js";

/** POST /auth/password: the current password is required; every other browser is signed out. */
export async function passwordRoute(app: FastifyInstance, ctx: ApiContext) {
  typed(app).post(
    "/auth/password",
    { schema: { body: passwordChangeSchema, response: { 204: noContentSchema } } },
    async (request, reply) => {
      const s = sessionOf(request);
      await enforceLimits(ctx.pool, [{ name: "passwordChangePerUser", subject: s.userId }]);
      const user = (await userById(ctx.pool, s.userId))!;
      if (!(await verifyPassword(request.body.current_password, user.password_hash))) {
        throw new ServiceError("INVALID_CURRENT_PASSWORD", "the current password is wrong");
      }
      const hash = await hashPassword(request.body.new_password);
      await inTransaction(ctx.pool, async (db) => {
        await setPasswordHash(db, s.userId, hash);
        await deleteOtherSessions(db, s.userId, s.sessionId);
        await sendMail(db, ctx.mailer, request.log, "security", messages.passwordChanged(user.email));
      });
      setKnownBrowserCookie(reply, knownBrowserMark(ctx.keyHashSecret, s.userId, hash));
      return reply.code(204).send();
    },
  );
}
