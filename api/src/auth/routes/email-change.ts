import type { FastifyInstance } from "fastify";
import { ServiceError } from "@countersign/protocol/errors";
import {
  acceptedSchema,
  emailChangeApproveSchema,
  emailChangedSchema,
  emailChangeRejectedSchema,
  emailChangeSchema,
  tokenBodySchema,
} from "@countersign/protocol/wire";
import { peekEmailToken } from "../../accounts/email-tokens-store.js";
import { withCurrentPassword } from "../../accounts/current-password.js";
import { verifyPassword } from "../../accounts/password-hash.js";
import { userByEmail, userById } from "../../accounts/users-store.js";
import type { ApiContext } from "../../context.js";
import { enforceLimits } from "../../rate-limits/counter.js";
import { ipSubjects } from "../../rate-limits/client-ip.js";
import { sessionOf, typed } from "../../http/shared.js";
import { approveEmailChange, emailTaken, rejectEmailChange, requestEmailChange } from "../email-change.js";

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
      const user = await withCurrentPassword(
        ctx.pool,
        s.userId,
        request.body.password,
        "the password is wrong",
      );
      if (new_email === user.email.toLowerCase())
        throw new ServiceError("INVALID_INPUT", "this is already the account's address");
      if (await userByEmail(ctx.pool, new_email)) throw emailTaken();
      await requestEmailChange(ctx, request.log, {
        userId: s.userId,
        oldEmail: user.email,
        newEmail: new_email,
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
      const newEmail = await approveEmailChange(ctx.pool, request.body.token);
      return { email: newEmail, email_verified: true as const };
    },
  );

  r.post(
    "/auth/email/change/reject",
    { schema: { body: tokenBodySchema, response: { 200: emailChangeRejectedSchema } } },
    async (request) => {
      await linkLimit(request.clientAddress);
      await rejectEmailChange(ctx.pool, request.body.token);
      return { rejected: true as const };
    },
  );
}
