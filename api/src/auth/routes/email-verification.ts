import type { FastifyInstance } from "fastify";
import {
  acceptedSchema,
  emailBodySchema,
  emailVerifiedSchema,
  tokenBodySchema,
} from "@countersign/protocol/wire";
import type { ApiContext } from "../../context.js";
import { enforceLimits } from "../../rate-limits/counter.js";
import { ipSubjects } from "../../rate-limits/client-ip.js";
import { typed } from "../../http/shared.js";
import { resendVerification, verifyEmail } from "../email-verification.js";

/** POST /auth/email/verify (link holder) and POST /auth/email/resend (anyone, always 202). */
export async function emailVerificationRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  r.post(
    "/auth/email/verify",
    { schema: { body: tokenBodySchema, response: { 200: emailVerifiedSchema } } },
    async (request) => {
      await enforceLimits(ctx.pool, [{ name: "verifyPerIp", subject: ipSubjects(request.clientAddress).ip }]);
      await verifyEmail(ctx.pool, request.body.token);
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
      await resendVerification(ctx, request.log, email);
      return reply
        .code(202)
        .send({ message: "if the address awaits verification, a new link was sent to it" });
    },
  );
}
