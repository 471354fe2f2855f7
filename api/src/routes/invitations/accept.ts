import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { isPlan } from "@countersign/core/plans";
import { inTransaction } from "@countersign/core/store";
import { tokenHash } from "../../accounts/tokens.js";
import { actorOf, audit } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import { checkQuota } from "../../orgs/quota.js";
import { enforceLimits } from "../../rate-limits/counter.js";
import { sessionOf, tokenSchema, typed } from "../../http/shared.js";
import { seatsTaken } from "./invitations.js";

/** POST /invitations/accept: the signed-in invitee whose verified address matches. */
export async function acceptInvitationRoute(app: FastifyInstance, ctx: ApiContext) {
  typed(app).post(
    "/invitations/accept",
    { schema: { body: z.strictObject({ token: tokenSchema }) } },
    async (request) => {
      const s = sessionOf(request);
      await enforceLimits(ctx.pool, [{ name: "acceptPerUser", subject: s.userId }]);
      return inTransaction(ctx.pool, async (db) => {
        const { rows } = await db.query<{
          id: string;
          organization_id: string;
          email: string;
          role: string;
          expired: boolean;
          open: boolean;
          plan: string | null;
        }>(
          `select i.id, i.organization_id, i.email, i.role, i.expires_at <= now() as expired,
                (i.accepted_at is null and i.revoked_at is null) as open, o.plan
           from invitations i join organizations o on o.id = i.organization_id
          where i.token_hash = $1 for update of i, o`,
          [tokenHash(request.body.token)],
        );
        const inv = rows[0];
        if (!inv || !inv.open) throw new ServiceError("INVITATION_INVALID", "this invitation is invalid");
        if (inv.expired) throw new ServiceError("INVITATION_EXPIRED", "this invitation has expired");
        if (inv.email.toLowerCase() !== s.email.toLowerCase()) {
          throw new ServiceError("INVITATION_EMAIL_MISMATCH", "this invitation is for another address");
        }
        const { rows: member } = await db.query(
          "select 1 from memberships where organization_id = $1 and user_id = $2",
          [inv.organization_id, s.userId],
        );
        if (member.length) throw new ServiceError("ALREADY_MEMBER", "you are already a member");
        checkQuota(
          isPlan(inv.plan) ? inv.plan : ctx.defaultPlan,
          "members",
          await seatsTaken(db, inv.organization_id, inv.id),
        );
        await db.query("insert into memberships (organization_id, user_id, role) values ($1, $2, $3)", [
          inv.organization_id,
          s.userId,
          inv.role,
        ]);
        await db.query("update invitations set accepted_at = now(), accepted_by = $2 where id = $1", [
          inv.id,
          s.userId,
        ]);
        await audit(db, {
          organizationId: inv.organization_id,
          action: "invitation.accepted",
          actor: actorOf(s),
          target: { type: "user", id: s.userId },
          details: { invitation_id: inv.id, role: inv.role },
        });
        return { organization_id: inv.organization_id, role: inv.role };
      });
    },
  );
}
