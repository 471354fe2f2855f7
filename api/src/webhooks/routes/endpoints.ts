import type { FastifyInstance } from "fastify";
import { z } from "zod";
import {
  noContentSchema,
  webhookEndpointAnswerSchema,
  webhookEndpointCreateSchema,
  webhookEndpointListSchema,
  webhookEndpointPatchedSchema,
  webhookEndpointPatchSchema,
  webhookEndpointWithSecretSchema,
} from "@countersign/protocol/wire";
import { actorOf } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import {
  decodeCursor,
  timeCursor,
  keysetPage,
  organizationOf,
  orgParams,
  pageQuery,
  typed,
} from "../../http/shared.js";
import { createdForSchema } from "../../http/created-for.js";
import { createEndpoint } from "../create-endpoint.js";
import { deleteEndpoint } from "../delete-endpoint.js";
import { endpointJson } from "../endpoint-json.js";
import { endpointNotFound, listEndpoints, readEndpoint } from "../endpoint-store.js";
import { webhookClock } from "../options.js";
import { changeEndpoint } from "../update-endpoint.js";

const params = z.strictObject({ org_id: z.uuid(), webhook_id: z.uuid() });

/**
 * GET, POST /orgs/<org_id>/webhooks; GET, PATCH, DELETE .../webhooks/<id>. Beyond the spec
 * (docs/access.md): `created_for` on the create and the list. The changes are operations of
 * their own (create-endpoint.ts, update-endpoint.ts, delete-endpoint.ts).
 */
export async function webhookEndpointRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);

  r.get(
    "/orgs/:org_id/webhooks",
    {
      schema: {
        params: orgParams,
        querystring: z.strictObject({ ...pageQuery, created_for: createdForSchema.optional() }),
        response: { 200: webhookEndpointListSchema },
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const { limit, cursor, created_for } = request.query;
      const rows = await listEndpoints(ctx.pool, o.id, decodeCursor(cursor, timeCursor), limit, created_for);
      const now = webhookClock(ctx);
      return keysetPage(
        rows,
        limit,
        (e) => endpointJson(e, now),
        (last) => [last.created_at.toISOString(), last.id],
      );
    },
  );

  r.post(
    "/orgs/:org_id/webhooks",
    {
      schema: {
        params: orgParams,
        querystring: z.strictObject({ created_for: createdForSchema.optional() }),
        body: webhookEndpointCreateSchema,
        response: { 201: webhookEndpointWithSecretSchema },
      },
    },
    async (request, reply) => {
      const p = request.principal;
      const { endpoint, secret } = await createEndpoint(ctx, {
        organization: organizationOf(request),
        body: request.body,
        createdFor: request.query.created_for,
        actor: actorOf(p),
        userId: p.kind === "session" ? p.userId : null,
      });
      // The only time this secret leaves the service.
      return reply.code(201).send({ webhook: endpointJson(endpoint, webhookClock(ctx)), secret });
    },
  );

  r.get(
    "/orgs/:org_id/webhooks/:webhook_id",
    { schema: { params, response: { 200: webhookEndpointAnswerSchema } } },
    async (request) => {
      const e = await readEndpoint(ctx.pool, organizationOf(request).id, request.params.webhook_id);
      if (!e) throw endpointNotFound();
      return { webhook: endpointJson(e, webhookClock(ctx)) };
    },
  );

  r.patch(
    "/orgs/:org_id/webhooks/:webhook_id",
    { schema: { params, body: webhookEndpointPatchSchema, response: { 200: webhookEndpointPatchedSchema } } },
    async (request) => {
      const now = webhookClock(ctx);
      const { endpoint, secret } = await changeEndpoint(ctx, {
        organizationId: organizationOf(request).id,
        endpointId: request.params.webhook_id,
        body: request.body,
        actor: actorOf(request.principal),
        now,
      });
      return secret
        ? { webhook: endpointJson(endpoint, now), secret }
        : { webhook: endpointJson(endpoint, now) };
    },
  );

  r.delete(
    "/orgs/:org_id/webhooks/:webhook_id",
    { schema: { params, response: { 204: noContentSchema } } },
    async (request, reply) => {
      await deleteEndpoint(ctx.pool, {
        organizationId: organizationOf(request).id,
        endpointId: request.params.webhook_id,
        actor: actorOf(request.principal),
      });
      return reply.code(204).send();
    },
  );
}
