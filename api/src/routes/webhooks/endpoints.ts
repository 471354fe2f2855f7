import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction } from "@countersign/core/store";
import { newSigningSecret, PREVIOUS_SECRET_MS, subscribableEventTypes } from "@countersign/core/webhooks";
import { actorOf, audit } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import { checkQuota } from "../../orgs/quota.js";
import { sealSecret } from "../../webhooks/endpoint-secrets.js";
import type { WebhookOptions } from "../../webhooks/options.js";
import { decodeCursor, timeCursor, keysetPage, organizationOf, pageQuery, typed } from "../../http/shared.js";
import { ENDPOINT_COLUMNS, endpointJson, type EndpointRow } from "./serialize.js";
import { requirePublicUrl } from "./url-check.js";

const params = z.strictObject({ org_id: z.uuid(), webhook_id: z.uuid() });
// Length and form are URL rules of SPEC 6.4 (422 URL_NOT_ALLOWED), not body validation.
const url = z.string().min(1).max(65536);
const description = z.string().max(500);
const eventTypes = z
  .array(z.enum(subscribableEventTypes))
  .min(1)
  .refine((t) => new Set(t).size === t.length, "no duplicates");

const createBody = z.strictObject({
  url,
  description: description.default(""),
  enabled: z.boolean().default(true),
  event_types: eventTypes,
});
const patchBody = z
  .strictObject({
    url: url.optional(),
    description: description.optional(),
    enabled: z.boolean().optional(),
    event_types: eventTypes.optional(),
    rotate_secret: z.boolean().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, "nothing to change");

export function webhookOptionsOf(ctx: ApiContext): WebhookOptions {
  if (!ctx.webhooks) throw new Error("webhooks are not configured (COUNTERSIGN_CREDENTIAL_KEY)");
  return ctx.webhooks;
}

const clock = (ctx: ApiContext) => ctx.webhooks?.now?.() ?? new Date();

/** GET, POST /orgs/<org_id>/webhooks; GET, PATCH, DELETE .../webhooks/<id> (SPEC 2.10, 6). */
export async function webhookEndpointRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);

  r.get(
    "/orgs/:org_id/webhooks",
    { schema: { params: z.strictObject({ org_id: z.uuid() }), querystring: z.strictObject(pageQuery) } },
    async (request) => {
      const o = organizationOf(request);
      const { limit, cursor } = request.query;
      const after = decodeCursor(cursor, timeCursor);
      const { rows } = await ctx.pool.query<EndpointRow>(
        `select ${ENDPOINT_COLUMNS} from webhook_endpoints where organization_id = $1
         and ($2::timestamptz is null or (created_at, id) > ($2::timestamptz, $3::uuid))
       order by created_at, id limit $4`,
        [o.id, after?.[0] ?? null, after?.[1] ?? null, limit + 1],
      );
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
    { schema: { params: z.strictObject({ org_id: z.uuid() }), body: createBody } },
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
        await db.query("select 1 from organizations where id = $1 for update", [o.id]);
        const { rows: count } = await db.query<{ n: string }>(
          "select count(*) as n from webhook_endpoints where organization_id = $1",
          [o.id],
        );
        checkQuota(o.plan, "webhookEndpoints", Number(count[0]!.n));
        const { rows } = await db.query<EndpointRow>(
          `insert into webhook_endpoints (id, organization_id, url, description, enabled, event_types, secret_encrypted, created_by)
         values ($1, $2, $3, $4, $5, $6, $7, $8) returning ${ENDPOINT_COLUMNS}`,
          [
            id,
            o.id,
            b.url,
            b.description,
            b.enabled,
            b.event_types,
            sealSecret(w.credentialKey, id, secret),
            p.kind === "session" ? p.userId : null,
          ],
        );
        await audit(db, {
          organizationId: o.id,
          action: "webhook.created",
          actor: actorOf(p),
          target: { type: "webhook", id },
          details: { url: b.url, enabled: b.enabled, event_types: b.event_types },
        });
        return rows[0]!;
      });
      // The only time this secret leaves the service (SPEC 2.10).
      return reply.code(201).send({ webhook: endpointJson(row, clock(ctx)), secret });
    },
  );

  r.get("/orgs/:org_id/webhooks/:webhook_id", { schema: { params } }, async (request) => {
    const o = organizationOf(request);
    const { rows } = await ctx.pool.query<EndpointRow>(
      `select ${ENDPOINT_COLUMNS} from webhook_endpoints where id = $1 and organization_id = $2`,
      [request.params.webhook_id, o.id],
    );
    if (!rows[0]) throw new ServiceError("NOT_FOUND", "webhook endpoint not found");
    return { webhook: endpointJson(rows[0], clock(ctx)) };
  });

  r.patch("/orgs/:org_id/webhooks/:webhook_id", { schema: { params, body: patchBody } }, async (request) => {
    const o = organizationOf(request);
    const w = webhookOptionsOf(ctx);
    const b = request.body;
    const id = request.params.webhook_id;
    const exists = await ctx.pool.query(
      "select 1 from webhook_endpoints where id = $1 and organization_id = $2",
      [id, o.id],
    );
    if (!exists.rows.length) throw new ServiceError("NOT_FOUND", "webhook endpoint not found");
    if (b.url !== undefined) await requirePublicUrl(b.url, w);
    const now = clock(ctx);
    const secret = b.rotate_secret ? newSigningSecret() : undefined;
    const row = await inTransaction(ctx.pool, async (db) => {
      const { rows: before } = await db.query<EndpointRow & { secret_encrypted: Buffer }>(
        `select ${ENDPOINT_COLUMNS}, secret_encrypted from webhook_endpoints where id = $1 and organization_id = $2 for update`,
        [id, o.id],
      );
      const e = before[0];
      if (!e) throw new ServiceError("NOT_FOUND", "webhook endpoint not found");
      const enabled = b.enabled ?? e.enabled;
      const { rows } = await db.query<EndpointRow>(
        `update webhook_endpoints set url = $2, description = $3, enabled = $4, event_types = $5,
            -- A person's choice replaces the reason the service disabled it for.
            disabled_reason = case when $6::boolean then null else disabled_reason end,
            secret_encrypted = coalesce($7, secret_encrypted),
            -- Only one previous secret is kept: a second rotation drops the older one at once (SPEC 6.3).
            previous_secret_encrypted = case when $7::bytea is null then previous_secret_encrypted else secret_encrypted end,
            previous_secret_until = case when $7::bytea is null then previous_secret_until else $8::timestamptz end,
            updated_at = now()
          where id = $1 returning ${ENDPOINT_COLUMNS}`,
        [
          id,
          b.url ?? e.url,
          b.description ?? e.description,
          enabled,
          b.event_types ?? e.event_types,
          b.enabled !== undefined,
          secret ? sealSecret(w.credentialKey, id, secret) : null,
          new Date(now.getTime() + PREVIOUS_SECRET_MS),
        ],
      );
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
      return rows[0]!;
    });
    return secret ? { webhook: endpointJson(row, now), secret } : { webhook: endpointJson(row, now) };
  });

  r.delete("/orgs/:org_id/webhooks/:webhook_id", { schema: { params } }, async (request, reply) => {
    const o = organizationOf(request);
    await inTransaction(ctx.pool, async (db) => {
      // Deliveries and their log go with the endpoint (cascade); the events stay (SPEC 6.1, 6.4).
      const { rows } = await db.query<{ url: string }>(
        "delete from webhook_endpoints where id = $1 and organization_id = $2 returning url",
        [request.params.webhook_id, o.id],
      );
      if (!rows[0]) throw new ServiceError("NOT_FOUND", "webhook endpoint not found");
      await audit(db, {
        organizationId: o.id,
        action: "webhook.deleted",
        actor: actorOf(request.principal),
        target: { type: "webhook", id: request.params.webhook_id },
        details: { url: rows[0].url },
      });
    });
    return reply.code(204).send();
  });
}
