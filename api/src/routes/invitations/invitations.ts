import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Queryable } from "@countersign/core/store";
import { newToken, tokenHash } from "../../accounts/tokens.js";
import { actorOf, audit } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import { messages } from "../../mail/messages.js";
import { sendMail } from "../../mail/send.js";
import { checkQuota } from "../../orgs/quota.js";
import { credentialSubject } from "../../access/principal.js";
import { enforceLimits } from "../../rate-limits/counter.js";
import { emailSchema, organizationOf, roleSchema, typed } from "../../http/shared.js";

/** SPEC 8.4: an invitation lives 1 hour to 30 days, 7 days by default. */
const DEFAULT_TTL = 7 * 24 * 3600;

interface InvitationRow {
  id: string;
  email: string;
  role: string;
  invited_by: string | null;
  created_at: Date;
  expires_at: Date;
}

const invitationJson = (i: InvitationRow) => ({
  id: i.id,
  email: i.email,
  role: i.role,
  invited_by: i.invited_by,
  created_at: i.created_at.toISOString(),
  expires_at: i.expires_at.toISOString(),
});

/** Members plus open invitations: what the plan's member limit counts (SPEC 8.6). */
export async function seatsTaken(
  db: Queryable,
  orgId: string,
  exceptInvitation: string | null = null,
): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `select (select count(*) from memberships where organization_id = $1)
          + (select count(*) from invitations where organization_id = $1 and accepted_at is null and revoked_at is null
                and expires_at > now() and id is distinct from $2) as n`,
    [orgId, exceptInvitation],
  );
  return Number(rows[0]!.n);
}

/** GET, POST /orgs/<org_id>/invitations and DELETE .../invitations/<id> (Admins). */
export async function invitationRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  r.get(
    "/orgs/:org_id/invitations",
    { schema: { params: z.strictObject({ org_id: z.uuid() }), querystring: z.strictObject({}) } },
    async (request) => {
      const o = organizationOf(request);
      const { rows } = await ctx.pool.query<InvitationRow>(
        `select id, email, role, invited_by, created_at, expires_at from invitations
        where organization_id = $1 and accepted_at is null and revoked_at is null and expires_at > now()
        order by created_at, id`,
        [o.id],
      );
      return { items: rows.map(invitationJson), next_cursor: null };
    },
  );

  r.post(
    "/orgs/:org_id/invitations",
    {
      schema: {
        params: z.strictObject({ org_id: z.uuid() }),
        body: z.strictObject({
          email: emailSchema,
          role: roleSchema,
          expires_in_seconds: z.number().int().min(3600).max(2_592_000).optional(),
        }),
      },
    },
    async (request, reply) => {
      const o = organizationOf(request);
      const { email, role } = request.body;
      if (role === "owner" && o.role !== "owner")
        throw new ServiceError("OWNER_REQUIRED", "only an owner invites an owner");
      await enforceLimits(ctx.pool, [
        { name: "invitationsPerUser", subject: credentialSubject(request.principal) ?? "unknown" },
        { name: "invitationsPerOrganization", subject: o.id },
      ]);
      const token = newToken();
      const invitation = await inTransaction(ctx.pool, async (db) => {
        await db.query("select 1 from organizations where id = $1 for update", [o.id]);
        const { rows: member } = await db.query(
          "select 1 from memberships m join users u on u.id = m.user_id where m.organization_id = $1 and lower(u.email) = $2 and u.deleted_at is null",
          [o.id, email],
        );
        if (member.length)
          throw new ServiceError("ALREADY_MEMBER", "this address already belongs to a member");
        // An expired invitation no longer blocks a new one.
        await db.query(
          "update invitations set revoked_at = now() where organization_id = $1 and lower(email) = $2 and accepted_at is null and revoked_at is null and expires_at <= now()",
          [o.id, email],
        );
        const { rows: open } = await db.query(
          "select 1 from invitations where organization_id = $1 and lower(email) = $2 and accepted_at is null and revoked_at is null",
          [o.id, email],
        );
        if (open.length)
          throw new ServiceError("INVITATION_EXISTS", "an open invitation for this address exists");
        checkQuota(o.plan, "members", await seatsTaken(db, o.id));
        const invitedBy = request.principal.kind === "session" ? request.principal.userId : null;
        const { rows } = await db.query<InvitationRow>(
          `insert into invitations (organization_id, email, role, token_hash, invited_by, expires_at)
           values ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))
           returning id, email, role, invited_by, created_at, expires_at`,
          [o.id, email, role, tokenHash(token), invitedBy, request.body.expires_in_seconds ?? DEFAULT_TTL],
        );
        const inv = rows[0]!;
        await audit(db, {
          organizationId: o.id,
          action: "invitation.created",
          actor: actorOf(request.principal),
          target: { type: "invitation", id: inv.id },
          details: { email, role },
        });
        await sendMail(
          db,
          ctx.mailer,
          request.log,
          "account",
          messages.invitation(ctx.dashboardOrigin, email, o.name, role, token),
        );
        return inv;
      });
      return reply.code(201).send({ invitation: invitationJson(invitation) });
    },
  );

  r.delete(
    "/orgs/:org_id/invitations/:invitation_id",
    { schema: { params: z.strictObject({ org_id: z.uuid(), invitation_id: z.uuid() }) } },
    async (request, reply) => {
      const o = organizationOf(request);
      await inTransaction(ctx.pool, async (db) => {
        const { rows } = await db.query<{ open: boolean }>(
          "select (accepted_at is null and revoked_at is null) as open from invitations where id = $1 and organization_id = $2 for update",
          [request.params.invitation_id, o.id],
        );
        if (!rows[0]) throw new ServiceError("NOT_FOUND", "invitation not found");
        if (!rows[0].open)
          throw new ServiceError("INVALID_STATE", "the invitation was already accepted or revoked");
        await db.query("update invitations set revoked_at = now() where id = $1", [
          request.params.invitation_id,
        ]);
        await audit(db, {
          organizationId: o.id,
          action: "invitation.revoked",
          actor: actorOf(request.principal),
          target: { type: "invitation", id: request.params.invitation_id },
        });
      });
      return reply.code(204).send();
    },
  );
}
