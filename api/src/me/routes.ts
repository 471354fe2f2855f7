import type { FastifyInstance } from "fastify";
import { accountDeletionSchema, noContentSchema } from "@countersign/protocol/wire";
import { withCurrentPassword } from "../accounts/current-password.js";
import { actorOf } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { enforceLimits } from "../rate-limits/counter.js";
import { clearSessionCookie } from "../sessions/cookie.js";
import { sessionOf, typed } from "../http/shared.js";
import { deleteAccount } from "./delete-account.js";

/**
 * DELETE /me: delete one's own account (docs/access.md), with the current password
 * (delete-account.ts says what goes with it).
 */
export async function deleteAccountRoute(app: FastifyInstance, ctx: ApiContext) {
  typed(app).delete(
    "/me",
    { schema: { body: accountDeletionSchema, response: { 204: noContentSchema } } },
    async (request, reply) => {
      const s = sessionOf(request);
      // Shares the password change's budget: both let a session try passwords.
      await enforceLimits(ctx.pool, [{ name: "passwordChangePerUser", subject: s.userId }]);
      await withCurrentPassword(ctx.pool, s.userId, request.body.current_password);
      await deleteAccount(ctx.pool, { userId: s.userId, actor: actorOf(request.principal) });
      clearSessionCookie(reply);
      return reply.code(204).send();
    },
  );
}
