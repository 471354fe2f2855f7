import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { isPlan } from "@countersign/core/plans";
import { inTransaction } from "@countersign/core/store";
import {
  invitationAcceptedSchema,
  invitationAcceptSchema,
  invitationAnswerSchema,
  invitationCreateSchema,
  invitationListSchema,
  noContentSchema,
} from "@countersign/protocol/wire";
import { newToken, tokenHash } from "../accounts/tokens.js";
import { actorOf, audit } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { messages } from "../mail/messages.js";
import { sendMail } from "../mail/send.js";
import { addMember, isMember, isMemberByEmail } from "../members/store.js";
import { checkQuota } from "../orgs/quota.js";
import { lockOrganization } from "../orgs/store.js";
import { credentialSubject } from "../access/principal.js";
import { enforceLimits } from "../rate-limits/counter.js";
import { organizationOf, sessionOf, typed } from "../http/shared.js";
import { invitationJson } from "./invitation-json.js";
import {
  hasOpenInvitation,
  insertInvitation,
  listOpenInvitations,
  lockInvitation,
  lockInvitationByToken,
  markAccepted,
  revokeInvitation,
  seatsTaken,
} from "./store.js";

/** An invitation lives 1 hour to 30 days, 7 days by default. */
const DEFAULT_TTL = 7 * 24 * 3600;
const orgParams = z.strictObject({ org_id: z.uuid() });

/** GET, POST /orgs/<org_id>/invitations and DELETE .../invitations/<id> (Admins). */
export async function invitationRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  r.get(
    "/orgs/:org_id/invitations",
    {
      schema: {
        params: orgParams,
        querystring: z.strictObject({}),
        response: { 200: invitationListSchema },
      },
    },
    async (request) => {
      const rows = await listOpenInvitations(ctx.pool, organizationOf(request).id);
      return { items: rows.map(invitationJson), next_cursor: null };
    },
  );

  r.post(
    "/orgs/:org_id/invitations",
    {
      schema: {
        params: orgParams,
        body: invitationCreateSchema,
        response: { 201: invitationAnswerSchema },
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
        await lockOrganization(db, o.id);
        if (await isMemberByEmail(db, o.id, email))
          throw new ServiceError("ALREADY_MEMBER", "this address already belongs to a member");
        if (await hasOpenInvitation(db, o.id, email))
          throw new ServiceError("INVITATION_EXISTS", "an open invitation for this address exists");
        checkQuota(o.plan, "members", await seatsTaken(db, o.id));
        const inv = await insertInvitation(db, {
          orgId: o.id,
          email,
          role,
          tokenHash: tokenHash(token),
          invitedBy: request.principal.kind === "session" ? request.principal.userId : null,
          ttlSeconds: request.body.expires_in_seconds ?? DEFAULT_TTL,
        });
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
    {
      schema: {
        params: z.strictObject({ org_id: z.uuid(), invitation_id: z.uuid() }),
        response: { 204: noContentSchema },
      },
    },
    async (request, reply) => {
      const o = organizationOf(request);
      const id = request.params.invitation_id;
      await inTransaction(ctx.pool, async (db) => {
        const found = await lockInvitation(db, o.id, id);
        if (!found) throw new ServiceError("NOT_FOUND", "invitation not found");
        if (!found.open)
          throw new ServiceError("INVALID_STATE", "the invitation was already accepted or revoked");
        await revokeInvitation(db, id);
        await audit(db, {
          organizationId: o.id,
          action: "invitation.revoked",
          actor: actorOf(request.principal),
          target: { type: "invitation", id },
        });
      });
      return reply.code(204).send();
    },
  );
}

/** POST /invitations/accept: the signed-in invitee whose verified address matches. */
export async function acceptInvitationRoute(app: FastifyInstance, ctx: ApiContext) {
  typed(app).post(
    "/invitations/accept",
    { schema: { body: invitationAcceptSchema, response: { 200: invitationAcceptedSchema } } },
    async (request) => {
      const s = sessionOf(request);
      await enforceLimits(ctx.pool, [{ name: "acceptPerUser", subject: s.userId }]);
      return inTransaction(ctx.pool, async (db) => {
        const inv = await lockInvitationByToken(db, tokenHash(request.body.token));
        if (!inv || !inv.open) throw new ServiceError("INVITATION_INVALID", "this invitation is invalid");
        if (inv.expired) throw new ServiceError("INVITATION_EXPIRED", "this invitation has expired");
        if (inv.email.toLowerCase() !== s.email.toLowerCase()) {
          throw new ServiceError("INVITATION_EMAIL_MISMATCH", "this invitation is for another address");
        }
        if (await isMember(db, inv.organization_id, s.userId))
          throw new ServiceError("ALREADY_MEMBER", "you are already a member");
        checkQuota(
          isPlan(inv.plan) ? inv.plan : ctx.defaultPlan,
          "members",
          await seatsTaken(db, inv.organization_id, inv.id),
        );
        await addMember(db, inv.organization_id, s.userId, inv.role);
        await markAccepted(db, inv.id, s.userId);
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
