import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { noContentSchema, sessionAnswerSchema } from "@countersign/protocol/wire";
import { userById } from "../../accounts/users-store.js";
import type { ApiContext } from "../../context.js";
import { clearSessionCookie } from "../../sessions/cookie.js";
import { deleteSession } from "../../sessions/store.js";
import { sessionOf, typed } from "../../http/shared.js";
import { sessionJson } from "../session-json.js";

/** GET /auth/session (with the csrf_token) and POST /auth/signout. */
export async function sessionRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  r.get(
    "/auth/session",
    { schema: { querystring: z.strictObject({}), response: { 200: sessionAnswerSchema } } },
    async (request) => {
      const s = sessionOf(request);
      const user = (await userById(ctx.pool, s.userId))!;
      return { session: sessionJson(user, s, s.csrfToken) };
    },
  );

  r.post("/auth/signout", { schema: { response: { 204: noContentSchema } } }, async (request, reply) => {
    const s = sessionOf(request);
    await deleteSession(ctx.pool, s.sessionId);
    clearSessionCookie(reply);
    return reply.code(204).send();
  });
}
