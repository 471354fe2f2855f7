import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { isPlan } from "@countersign/core/plans";
import {
  organizationAnswerSchema,
  organizationCreateSchema,
  organizationListSchema,
  organizationSwitchSchema,
} from "@countersign/protocol/wire";
import { actorOf } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import { setCurrentOrganization } from "../../sessions/store.js";
import { organizationOf, orgParams, sessionOf, typed } from "../../http/shared.js";
import { createOrganization } from "../create.js";
import { organizationJson, type OrganizationRow } from "../organization-json.js";
import { organizationsOf, readOrganization } from "../store.js";

/** GET /orgs (the caller's), POST /orgs, GET /orgs/<id>, POST /orgs/<id>/switch. */
export async function organizationRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  const planOf = (o: OrganizationRow) => (isPlan(o.plan) ? o.plan : ctx.defaultPlan);

  r.get(
    "/orgs",
    { schema: { querystring: z.strictObject({}), response: { 200: organizationListSchema } } },
    async (request) => {
      const s = sessionOf(request);
      const rows = await organizationsOf(ctx.pool, s.userId);
      return { items: rows.map((o) => organizationJson(o, planOf(o), o.role)), next_cursor: null };
    },
  );

  r.post(
    "/orgs",
    { schema: { body: organizationCreateSchema, response: { 201: organizationAnswerSchema } } },
    async (request, reply) => {
      const s = sessionOf(request);
      const org = await createOrganization(ctx.pool, {
        name: request.body.name,
        slug: request.body.slug,
        userId: s.userId,
        sessionId: s.sessionId,
        actor: actorOf(request.principal),
      });
      return reply.code(201).send({ organization: organizationJson(org, planOf(org), "owner") });
    },
  );

  r.get(
    "/orgs/:org_id",
    {
      schema: {
        params: orgParams,
        querystring: z.strictObject({}),
        response: { 200: organizationAnswerSchema },
      },
    },
    async (request) => {
      const o = organizationOf(request);
      return { organization: organizationJson(await readOrganization(ctx.pool, o.id), o.plan, o.role) };
    },
  );

  r.post(
    "/orgs/:org_id/switch",
    { schema: { params: orgParams, response: { 200: organizationSwitchSchema } } },
    async (request) => {
      const s = sessionOf(request);
      const o = organizationOf(request);
      await setCurrentOrganization(ctx.pool, s.sessionId, o.id);
      return { current_organization_id: o.id };
    },
  );
}
