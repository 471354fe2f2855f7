import type { FastifyInstance } from "fastify";
import {
  acceptedSchema,
  emailBodySchema,
  noContentSchema,
  passwordResetConfirmSchema,
} from "@countersign/protocol/wire";
import { hashPassword } from "../../accounts/password-hash.js";
import type { ApiContext } from "../../context.js";
import { enforceLimits } from "../../rate-limits/counter.js";
import { ipSubjects } from "../../rate-limits/client-ip.js";
import { typed } from "../../http/shared.js";
import { confirmPasswordReset, requestPasswordReset } from "../password-reset.js";

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
      await requestPasswordReset(ctx, request.log, email);
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
      await confirmPasswordReset(ctx.pool, { token: request.body.token, passwordHash: hash });
      return reply.code(204).send();
    },
  );
}
