import type { FastifyInstance } from "fastify";
import {
  accountDeletionSchema,
  accountPreferencesSchema,
  noContentSchema,
  userAnswerSchema,
} from "@countersign/protocol/wire";
import { userById } from "../accounts/users-store.js";
import { withCurrentPassword } from "../accounts/current-password.js";
import { actorOf } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { enforceLimits } from "../rate-limits/counter.js";
import { clearSessionCookie } from "../sessions/cookie.js";
import { sessionOf, typed } from "../http/shared.js";
import { deleteAccount } from "./delete-account.js";
import { userJson } from "../auth/session-json.js";
import { setApprovalEmails } from "./store.js";

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

/**
 * PATCH /me: the person's own preferences (docs/access.md), today whether approval requests
 * waiting for them are e-mailed; answers the account as the session shows it.
 */
export async function accountPreferencesRoute(app: FastifyInstance, ctx: ApiContext) {
  typed(app).patch(
    "/me",
    { schema: { body: accountPreferencesSchema, response: { 200: userAnswerSchema } } },
    async (request) => {
      const s = sessionOf(request);
      await setApprovalEmails(ctx.pool, s.userId, request.body.approval_emails);
      return { user: userJson((await userById(ctx.pool, s.userId))!) };
    },
  );
}
