import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import {
  invitationAcceptedSchema,
  invitationAcceptSchema,
  invitationAnswerSchema,
  invitationCreateSchema,
  invitationListSchema,
  noContentSchema,
} from "@countersign/protocol/wire";
import { actorOf } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { credentialSubject } from "../access/principal.js";
import { enforceLimits } from "../rate-limits/counter.js";
import { organizationOf, orgParams, sessionOf, typed } from "../http/shared.js";
import { invitationJson } from "./invitation-json.js";
import { acceptInvitation } from "./accept.js";
import { createInvitation } from "./create.js";
import { revokeInvitation } from "./revoke.js";
import { listOpenInvitations } from "./store.js";

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
      const invitation = await createInvitation(ctx, request.log, {
        organization: o,
        email,
        role,
        expiresInSeconds: request.body.expires_in_seconds,
        invitedBy: request.principal.kind === "session" ? request.principal.userId : null,
        actor: actorOf(request.principal),
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
      await revokeInvitation(ctx.pool, {
        organizationId: o.id,
        invitationId: request.params.invitation_id,
        actor: actorOf(request.principal),
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
      return acceptInvitation(ctx.pool, ctx.defaultPlan, {
        token: request.body.token,
        userId: s.userId,
        email: s.email,
        actor: actorOf(s),
      });
    },
  );
}
