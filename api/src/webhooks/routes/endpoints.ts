import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction } from "@countersign/core/store";
import { newSigningSecret, PREVIOUS_SECRET_MS } from "@countersign/core/webhooks";
import {
  noContentSchema,
  webhookEndpointAnswerSchema,
  webhookEndpointCreateSchema,
  webhookEndpointListSchema,
  webhookEndpointPatchedSchema,
  webhookEndpointPatchSchema,
  webhookEndpointWithSecretSchema,
} from "@countersign/protocol/wire";
import { actorOf, audit } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import { checkQuota } from "../../orgs/quota.js";
import { lockOrganization } from "../../orgs/store.js";
import { decodeCursor, timeCursor, keysetPage, organizationOf, pageQuery, typed } from "../../http/shared.js";
import { createdForSchema } from "../../http/created-for.js";
import { sealSecret } from "../endpoint-secrets.js";
import { endpointJson } from "../endpoint-json.js";
import {
  deleteEndpoint,
  endpointCount,
  insertEndpoint,
  listEndpoints,
  readEndpoint,
  updateEndpoint,
} from "../endpoint-store.js";
import type { WebhookOptions } from "../options.js";
import { requirePublicUrl } from "../url-check.js";

const orgParams = z.strictObject({ org_id: z.uuid() });
const params = z.strictObject({ org_id: z.uuid(), webhook_id: z.uuid() });
const notFound = () => new ServiceError("NOT_FOUND", "webhook endpoint not found");

function webhookOptionsOf(ctx: ApiContext): WebhookOptions {
  if (!ctx.webhooks) throw new Error("webhooks are not configured (COUNTERSIGN_CREDENTIAL_KEY)");
  return ctx.webhooks;
}

const clock = (ctx: ApiContext) => ctx.webhooks?.now?.() ?? new Date();

/**
 * GET, POST /orgs/<org_id>/webhooks; GET, PATCH, DELETE .../webhooks/<id>. Beyond the spec
 * (docs/access.md): `created_for` on the create and the list.
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
      const now = clock(ctx);
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
      const o = organizationOf(request);
      const w = webhookOptionsOf(ctx);
      const b = request.body;
      await requirePublicUrl(b.url, w);
      const id = randomUUID();
      const secret = newSigningSecret();
      const p = request.principal;
      const row = await inTransaction(ctx.pool, async (db) => {
        // Serialize creations of one organization so the plan limit is exact.
        await lockOrganization(db, o.id);
        checkQuota(o.plan, "webhookEndpoints", await endpointCount(db, o.id));
        const created = await insertEndpoint(db, {
          id,
          orgId: o.id,
          url: b.url,
          description: b.description,
          enabled: b.enabled,
          eventTypes: b.event_types,
          sealedSecret: sealSecret(w.credentialKey, id, secret),
          createdBy: p.kind === "session" ? p.userId : null,
          createdFor: request.query.created_for,
        });
        await audit(db, {
          organizationId: o.id,
          action: "webhook.created",
          actor: actorOf(p),
          target: { type: "webhook", id },
          details: { url: b.url, enabled: b.enabled, event_types: b.event_types },
        });
        return created;
      });
      // The only time this secret leaves the service.
      return reply.code(201).send({ webhook: endpointJson(row, clock(ctx)), secret });
    },
  );

  r.get(
    "/orgs/:org_id/webhooks/:webhook_id",
    { schema: { params, response: { 200: webhookEndpointAnswerSchema } } },
    async (request) => {
      const e = await readEndpoint(ctx.pool, organizationOf(request).id, request.params.webhook_id);
      if (!e) throw notFound();
      return { webhook: endpointJson(e, clock(ctx)) };
    },
  );

  r.patch(
    "/orgs/:org_id/webhooks/:webhook_id",
    { schema: { params, body: webhookEndpointPatchSchema, response: { 200: webhookEndpointPatchedSchema } } },
    async (request) => {
      const o = organizationOf(request);
      const w = webhookOptionsOf(ctx);
      const b = request.body;
      const id = request.params.webhook_id;
      if (!(await readEndpoint(ctx.pool, o.id, id))) throw notFound();
      if (b.url !== undefined) await requirePublicUrl(b.url, w);
      const now = clock(ctx);
      const secret = b.rotate_secret ? newSigningSecret() : undefined;
      const row = await inTransaction(ctx.pool, async (db) => {
        const e = await readEndpoint(db, o.id, id, true);
        if (!e) throw notFound();
        const updated = await updateEndpoint(db, id, {
          url: b.url ?? e.url,
          description: b.description ?? e.description,
          enabled: b.enabled ?? e.enabled,
          eventTypes: b.event_types ?? e.event_types,
          enabledChosen: b.enabled !== undefined,
          sealedSecret: secret ? sealSecret(w.credentialKey, id, secret) : null,
          previousUntil: new Date(now.getTime() + PREVIOUS_SECRET_MS),
        });
        const changed = Object.fromEntries(
          (["url", "description", "enabled", "event_types"] as const)
            .filter((k) => b[k] !== undefined)
            .map((k) => [k, b[k]]),
        );
        await audit(db, {
          organizationId: o.id,
          action: "webhook.updated",
          actor: actorOf(request.principal),
          target: { type: "webhook", id },
          details: { ...changed, ...(secret ? { secret_rotated: true } : {}) },
        });
        return updated;
      });
      return secret ? { webhook: endpointJson(row, now), secret } : { webhook: endpointJson(row, now) };
    },
  );

  r.delete(
    "/orgs/:org_id/webhooks/:webhook_id",
    { schema: { params, response: { 204: noContentSchema } } },
    async (request, reply) => {
      const o = organizationOf(request);
      await inTransaction(ctx.pool, async (db) => {
        // Deliveries and their log go with the endpoint; the events stay.
        const url = await deleteEndpoint(db, o.id, request.params.webhook_id);
        if (url === undefined) throw notFound();
        await audit(db, {
          organizationId: o.id,
          action: "webhook.deleted",
          actor: actorOf(request.principal),
          target: { type: "webhook", id: request.params.webhook_id },
          details: { url },
        });
      });
      return reply.code(204).send();
    },
  );
}
