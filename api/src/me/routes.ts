import type { FastifyInstance } from "fastify";
import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction } from "@countersign/core/store";
import { accountDeletionSchema, noContentSchema } from "@countersign/protocol/wire";
import { revokeCreatorAccess } from "../access/creator-revocations.js";
import { verifyPassword } from "../accounts/password-hash.js";
import { userById } from "../accounts/users.js";
import { actorOf, audit } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { enforceLimits } from "../rate-limits/counter.js";
import { clearSessionCookie } from "../sessions/cookie.js";
import { sessionOf, typed } from "../http/shared.js";
import { deleteAccount, lockAndFindSoleOwnership } from "./store.js";

/**
 * DELETE /me: delete one's own account (docs/access.md). The current
 * password is required; the last owner of an organization must hand it over
 * first (409 LAST_OWNER). In one transaction the account is marked deleted,
 * its memberships and sessions end, and in every organization its keys are
 * revoked and its webhook endpoints disabled with reason `creator_deleted`.
 */
export async function deleteAccountRoute(app: FastifyInstance, ctx: ApiContext) {
  typed(app).delete(
    "/me",
    { schema: { body: accountDeletionSchema, response: { 204: noContentSchema } } },
    async (request, reply) => {
      const s = sessionOf(request);
      // Shares the password change's budget: both let a session try passwords.
      await enforceLimits(ctx.pool, [{ name: "passwordChangePerUser", subject: s.userId }]);
      const user = (await userById(ctx.pool, s.userId))!;
      if (!(await verifyPassword(request.body.current_password, user.password_hash))) {
        throw new ServiceError("INVALID_CURRENT_PASSWORD", "the current password is wrong");
      }
      await inTransaction(ctx.pool, async (db) => {
        const organization_id = await lockAndFindSoleOwnership(db, s.userId);
        if (organization_id) {
          throw new ServiceError(
            "LAST_OWNER",
            "you are the last owner of an organization: make someone else owner or delete it first",
            { organization_id },
          );
        }
        const left = await deleteAccount(db, s.userId);
        for (const m of left) {
          await audit(db, {
            organizationId: m.organization_id,
            action: "member.left",
            actor: actorOf(request.principal),
            target: { type: "user", id: s.userId },
            details: { role: m.role, reason: "account_deleted" },
          });
        }
        await audit(db, {
          organizationId: null,
          action: "account.deleted",
          actor: actorOf(request.principal),
          target: { type: "user", id: s.userId },
        });
        await revokeCreatorAccess(db, null, s.userId, "creator_deleted");
      });
      clearSessionCookie(reply);
      return reply.code(204).send();
    },
  );
}
