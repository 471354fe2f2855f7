import type { FastifyInstance } from "fastify";
import { inTransaction } from "@countersign/core/store";
import {
  acceptedSchema,
  emailBodySchema,
  noContentSchema,
  passwordResetConfirmSchema,
} from "@countersign/protocol/wire";
import { consumeEmailToken, issueEmailToken } from "../../accounts/email-tokens.js";
import { hashPassword } from "../../accounts/password-hash.js";
import { userByEmail } from "../../accounts/users.js";
import type { ApiContext } from "../../context.js";
import { messages } from "../../mail/messages.js";
import { sendMail } from "../../mail/send.js";
import { enforceLimits } from "../../rate-limits/counter.js";
import { ipSubjects } from "../../rate-limits/client-ip.js";
import { deleteOtherSessions } from "../../sessions/store.js";
import { typed } from "../../http/shared.js";
import { resetPassword } from "../store.js";

/** POST /auth/password-reset (anyone, always 202) and POST /auth/password-reset/confirm (link holder). */
export async function passwordResetRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  r.post(
    "/auth/password-reset",
    { schema: { body: emailBodySchema, response: { 202: acceptedSchema } } },
    async (request, reply) => {
      const { email } = request.body;
      const ip = ipSubjects(request.clientAddress).ip;
      await enforceLimits(ctx.pool, [
        { name: "resetPerIp", subject: ip },
        { name: "resetPerEmailAndIp", subject: `${email}|${ip}` },
      ]);
      await inTransaction(ctx.pool, async (db) => {
        const user = await userByEmail(db, email);
        if (!user || user.disabled_at) return;
        const token = await issueEmailToken(db, user.id, "reset");
        await sendMail(
          db,
          ctx.mailer,
          request.log,
          "reset",
          messages.reset(ctx.dashboardOrigin, user.email, token),
        );
      });
      return reply.code(202).send({ message: "if the address has an account, a reset link was sent to it" });
    },
  );

  r.post(
    "/auth/password-reset/confirm",
    { schema: { body: passwordResetConfirmSchema, response: { 204: noContentSchema } } },
    async (request, reply) => {
      await enforceLimits(ctx.pool, [
        { name: "resetConfirmPerIp", subject: ipSubjects(request.clientAddress).ip },
      ]);
      const hash = await hashPassword(request.body.new_password);
      await inTransaction(ctx.pool, async (db) => {
        const t = await consumeEmailToken(db, request.body.token, "reset");
        await resetPassword(db, t.user_id, hash);
        await deleteOtherSessions(db, t.user_id, null);
      });
      return reply.code(204).send();
    },
  );
}
