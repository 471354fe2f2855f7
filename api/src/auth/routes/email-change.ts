import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction } from "@countersign/core/store";
import {
  acceptedSchema,
  emailChangeApproveSchema,
  emailChangedSchema,
  emailChangeRejectedSchema,
  emailChangeSchema,
  tokenBodySchema,
} from "@countersign/protocol/wire";
import { consumeEmailToken, issueEmailToken, peekEmailToken } from "../../accounts/email-tokens.js";
import { verifyPassword } from "../../accounts/password-hash.js";
import { userByEmail, userById } from "../../accounts/users.js";
import { audit } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import { messages } from "../../mail/messages.js";
import { sendMail } from "../../mail/send.js";
import { enforceLimits } from "../../rate-limits/counter.js";
import { ipSubjects } from "../../rate-limits/client-ip.js";
import { isUniqueViolation, sessionOf, typed } from "../../http/shared.js";
import { closeEmailChange, setVerifiedEmail } from "../store.js";

const taken = () => new ServiceError("EMAIL_TAKEN", "this address belongs to another account");

/**
 * E-mail change: POST /me/email (signed in, password required) sends an
 * approve link to the new address and a reject link to the old one; approve
 * (with the account's password) moves the account, reject stops the change.
 */
export async function emailChangeRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  r.post(
    "/me/email",
    { schema: { body: emailChangeSchema, response: { 202: acceptedSchema } } },
    async (request, reply) => {
      const s = sessionOf(request);
      const { new_email } = request.body;
      await enforceLimits(ctx.pool, [{ name: "emailChangePerUser", subject: s.userId }]);
      const user = (await userById(ctx.pool, s.userId))!;
      if (!(await verifyPassword(request.body.password, user.password_hash))) {
        throw new ServiceError("INVALID_CURRENT_PASSWORD", "the password is wrong");
      }
      if (new_email === user.email.toLowerCase())
        throw new ServiceError("INVALID_INPUT", "this is already the account's address");
      if (await userByEmail(ctx.pool, new_email)) throw taken();
      await inTransaction(ctx.pool, async (db) => {
        const changeId = randomUUID();
        const approve = await issueEmailToken(db, s.userId, "email_change_approve", {
          newEmail: new_email,
          changeId,
        });
        const reject = await issueEmailToken(db, s.userId, "email_change_reject", {
          newEmail: new_email,
          changeId,
        });
        await sendMail(
          db,
          ctx.mailer,
          request.log,
          "account",
          messages.emailChangeApprove(ctx.dashboardOrigin, new_email, approve),
        );
        await sendMail(
          db,
          ctx.mailer,
          request.log,
          "security",
          messages.emailChangeReject(ctx.dashboardOrigin, user.email, new_email, reject),
        );
      });
      return reply.code(202).send({ message: "an approval link was sent to the new address" });
    },
  );

  const linkLimit = (ip: string) =>
    enforceLimits(ctx.pool, [{ name: "emailChangeLinkPerIp", subject: ipSubjects(ip).ip }]);

  r.post(
    "/auth/email/change/approve",
    { schema: { body: emailChangeApproveSchema, response: { 200: emailChangedSchema } } },
    async (request) => {
      await linkLimit(request.clientAddress);
      const pending = await peekEmailToken(ctx.pool, request.body.token, "email_change_approve");
      const user = await userById(ctx.pool, pending.user_id);
      if (!user || !(await verifyPassword(request.body.password, user.password_hash))) {
        throw new ServiceError("INVALID_CREDENTIALS", "wrong password");
      }
      const newEmail = await inTransaction(ctx.pool, async (db) => {
        const t = await consumeEmailToken(db, request.body.token, "email_change_approve");
        await closeEmailChange(db, t.change_id);
        try {
          await setVerifiedEmail(db, t.user_id, t.new_email!);
        } catch (err) {
          if (isUniqueViolation(err)) throw taken();
          throw err;
        }
        await audit(db, {
          organizationId: null,
          action: "account.email_changed",
          actor: { type: "user", id: t.user_id, label: t.new_email },
          target: { type: "user", id: t.user_id },
        });
        return t.new_email!;
      });
      return { email: newEmail, email_verified: true as const };
    },
  );

  r.post(
    "/auth/email/change/reject",
    { schema: { body: tokenBodySchema, response: { 200: emailChangeRejectedSchema } } },
    async (request) => {
      await linkLimit(request.clientAddress);
      await inTransaction(ctx.pool, async (db) => {
        const t = await consumeEmailToken(db, request.body.token, "email_change_reject");
        await closeEmailChange(db, t.change_id);
      });
      return { rejected: true as const };
    },
  );
}
