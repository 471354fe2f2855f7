import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction } from "@countersign/core/store";
import { revokeCreatorAccess } from "../../access/creator-revocations.js";
import { verifyPassword } from "../../accounts/password-hash.js";
import { userById } from "../../accounts/users.js";
import { actorOf, audit } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import { enforceLimits } from "../../rate-limits/counter.js";
import { clearSessionCookie } from "../../sessions/cookie.js";
import { sessionOf, typed } from "../../http/shared.js";

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
    { schema: { body: z.strictObject({ current_password: z.string().max(256) }) } },
    async (request, reply) => {
      const s = sessionOf(request);
      // Shares the password change's budget: both let a session try passwords.
      await enforceLimits(ctx.pool, [{ name: "passwordChangePerUser", subject: s.userId }]);
      const user = (await userById(ctx.pool, s.userId))!;
      if (!(await verifyPassword(request.body.current_password, user.password_hash))) {
        throw new ServiceError("INVALID_CURRENT_PASSWORD", "the current password is wrong");
      }
      await inTransaction(ctx.pool, async (db) => {
        await db.query("select 1 from users where id = $1 for update", [s.userId]);
        // Lock every organization this person owns, in id order, and look for one without another owner.
        const { rows: owned } = await db.query<{ organization_id: string }>(
          `select m.organization_id from memberships m join organizations o on o.id = m.organization_id
          where m.user_id = $1 and m.role = 'owner' order by m.organization_id for update of o`,
          [s.userId],
        );
        for (const { organization_id } of owned) {
          const { rows } = await db.query<{ n: string }>(
            `select count(*) as n from memberships m join users u on u.id = m.user_id
            where m.organization_id = $1 and m.role = 'owner' and u.deleted_at is null`,
            [organization_id],
          );
          if (Number(rows[0]!.n) <= 1) {
            throw new ServiceError(
              "LAST_OWNER",
              "you are the last owner of an organization: make someone else owner or delete it first",
              {
                organization_id,
              },
            );
          }
        }
        await db.query("update users set deleted_at = now() where id = $1", [s.userId]);
        await db.query("delete from sessions where user_id = $1", [s.userId]);
        const { rows: left } = await db.query<{ organization_id: string; role: string }>(
          "delete from memberships where user_id = $1 returning organization_id, role",
          [s.userId],
        );
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
