import type { FastifyInstance } from "fastify";
import { inTransaction } from "@countersign/core/store";
import { acceptedSchema, signupSchema } from "@countersign/protocol/wire";
import { issueEmailToken } from "../../accounts/email-tokens.js";
import { hashPassword } from "../../accounts/password-hash.js";
import { userByEmail } from "../../accounts/users.js";
import type { ApiContext } from "../../context.js";
import { sendMail } from "../../mail/send.js";
import { messages } from "../../mail/messages.js";
import { enforceLimits, type Hit } from "../../rate-limits/counter.js";
import { ipSubjects } from "../../rate-limits/client-ip.js";
import { typed } from "../../http/shared.js";
import { insertUser } from "../store.js";

/**
 * POST /auth/signup: always 202, whether or not the address has an account,
 * so the answer never tells who is registered. A new address gets a
 * verification link; a registered one a notice instead.
 */
export async function signupRoute(app: FastifyInstance, ctx: ApiContext) {
  typed(app).post(
    "/auth/signup",
    { schema: { body: signupSchema, response: { 202: acceptedSchema } } },
    async (request, reply) => {
      const { email, password, name } = request.body;
      const net = ipSubjects(request.clientAddress);
      const hits: Hit[] = [
        { name: "signupPerIp", subject: net.ip },
        { name: "signupPerEmail", subject: email },
      ];
      if (net.net48) hits.push({ name: "signupPerIpv6Net48", subject: net.net48 });
      await enforceLimits(ctx.pool, hits);
      const passwordHash = await hashPassword(password);
      await inTransaction(ctx.pool, async (db) => {
        const existing = await userByEmail(db, email);
        if (existing?.email_verified_at) {
          await sendMail(
            db,
            ctx.mailer,
            request.log,
            "security",
            messages.alreadyRegistered(ctx.dashboardOrigin, existing.email),
          );
          return;
        }
        const userId = existing?.id ?? (await insertUser(db, email, passwordHash, name ?? null));
        // An unverified account is not the person's yet: the link goes to the
        // address, and only its holder can use the account.
        const token = await issueEmailToken(db, userId, "verify");
        await sendMail(
          db,
          ctx.mailer,
          request.log,
          "account",
          messages.verify(ctx.dashboardOrigin, email, token),
        );
      });
      return reply
        .code(202)
        .send({ message: "if the address can be used, a verification link was sent to it" });
    },
  );
}
