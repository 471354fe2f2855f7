import type { FastifyInstance } from "fastify";
import { acceptedSchema, signupSchema } from "@countersign/protocol/wire";
import { hashPassword } from "../../accounts/password-hash.js";
import type { ApiContext } from "../../context.js";
import { enforceLimits, type Hit } from "../../rate-limits/counter.js";
import { ipSubjects } from "../../rate-limits/client-ip.js";
import { typed } from "../../http/shared.js";
import { signUp } from "../sign-up.js";

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
      await signUp(ctx, request.log, { email, passwordHash, name: name ?? null });
      return reply
        .code(202)
        .send({ message: "if the address can be used, a verification link was sent to it" });
    },
  );
}
