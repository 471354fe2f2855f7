import type { FastifyInstance } from "fastify";
import { inTransaction } from "@countersign/core/store";
import {
  acceptedSchema,
  emailBodySchema,
  emailVerifiedSchema,
  tokenBodySchema,
} from "@countersign/protocol/wire";
import { consumeEmailToken, issueEmailToken } from "../../accounts/email-tokens.js";
import { userByEmail } from "../../accounts/users.js";
import type { ApiContext } from "../../context.js";
import { messages } from "../../mail/messages.js";
import { sendMail } from "../../mail/send.js";
import { enforceLimits } from "../../rate-limits/counter.js";
import { ipSubjects } from "../../rate-limits/client-ip.js";
import { typed } from "../../http/shared.js";
import { markEmailVerified } from "../store.js";

/** POST /auth/email/verify (link holder) and POST /auth/email/resend (anyone, always 202). */
export async function emailVerificationRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  r.post(
    "/auth/email/verify",
    { schema: { body: tokenBodySchema, response: { 200: emailVerifiedSchema } } },
    async (request) => {
      await enforceLimits(ctx.pool, [{ name: "verifyPerIp", subject: ipSubjects(request.clientAddress).ip }]);
      await inTransaction(ctx.pool, async (db) => {
        const t = await consumeEmailToken(db, request.body.token, "verify");
        await markEmailVerified(db, t.user_id);
      });
      return { email_verified: true as const };
    },
  );

  r.post(
    "/auth/email/resend",
    { schema: { body: emailBodySchema, response: { 202: acceptedSchema } } },
    async (request, reply) => {
      const { email } = request.body;
      await enforceLimits(ctx.pool, [
        { name: "resendPerEmailMinute", subject: email },
        { name: "resendPerIp", subject: ipSubjects(request.clientAddress).ip },
        { name: "resendPerEmailHour", subject: email },
      ]);
      await inTransaction(ctx.pool, async (db) => {
        const user = await userByEmail(db, email);
        if (!user || user.email_verified_at || user.disabled_at) return;
        const token = await issueEmailToken(db, user.id, "verify");
        await sendMail(
          db,
          ctx.mailer,
          request.log,
          "account",
          messages.verify(ctx.dashboardOrigin, user.email, token),
        );
      });
      return reply
        .code(202)
        .send({ message: "if the address awaits verification, a new link was sent to it" });
    },
  );
}
