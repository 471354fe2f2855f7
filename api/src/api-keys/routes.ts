import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import {
  apiKeyAnswerSchema,
  apiKeyCreatedSchema,
  apiKeyCreateSchema as createBody,
  apiKeyKinds,
  apiKeyListSchema,
} from "@countersign/protocol/wire";
import { actorOf } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import {
  decodeCursor,
  timeCursor,
  isAdmin,
  keysetPage,
  organizationOf,
  pageQuery,
  typed,
  orgParams,
} from "../http/shared.js";
import { keyJson } from "./key-json.js";
import { createdForSchema } from "../http/created-for.js";
import { createApiKey } from "./create.js";
import { revokeApiKey } from "./revoke.js";
import { findKey, listKeys } from "./store.js";

/** Management keys are the Admins' to create, list and revoke; gateway keys the Writers'. */
function mayHandle(kind: "gateway" | "management", role: string | null): boolean {
  return kind === "gateway" || isAdmin(role as never);
}

/**
 * GET, POST /orgs/<org_id>/api-keys, GET .../api-keys/<key_id> and POST .../api-keys/<key_id>/revoke.
 * Beyond the spec (docs/access.md): `created_for` on the create and the list, `state=active` on the
 * list, and the read of one key, so the operator reads what one Agent needs instead of every key.
 */
export async function apiKeyRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  r.get(
    "/orgs/:org_id/api-keys",
    {
      schema: {
        params: orgParams,
        querystring: z.strictObject({
          ...pageQuery,
          kind: z.enum(apiKeyKinds).optional(),
          created_for: createdForSchema.optional(),
          state: z.literal("active").optional(),
        }),
        response: { 200: apiKeyListSchema },
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const { limit, cursor, kind, created_for, state } = request.query;
      const after = decodeCursor(cursor, timeCursor);
      // Developers see gateway keys only.
      const kinds = isAdmin(o.role)
        ? kind
          ? [kind]
          : ["gateway", "management"]
        : kind === "management"
          ? []
          : ["gateway"];
      const rows = await listKeys(ctx.pool, o.id, kinds, after, limit, {
        createdFor: created_for,
        // Expired keys count as live for the plan until revoked, so "active" leaves out only revoked ones.
        unrevoked: state === "active",
      });
      return keysetPage(rows, limit, keyJson, (last) => [last.created_at.toISOString(), last.id]);
    },
  );

  r.post(
    "/orgs/:org_id/api-keys",
    {
      schema: {
        params: orgParams,
        querystring: z.strictObject({ created_for: createdForSchema.optional() }),
        body: createBody,
        response: { 201: apiKeyCreatedSchema },
      },
    },
    async (request, reply) => {
      const o = organizationOf(request);
      const b = request.body;
      if (!mayHandle(b.kind, o.role))
        throw new ServiceError("FORBIDDEN", "only owners and admins handle management keys", {
          permission: "admins",
          role: o.role,
        });
      const expires = b.expires_at ? new Date(b.expires_at) : undefined;
      if (expires && expires.getTime() <= Date.now()) {
        throw new ServiceError("INVALID_INPUT", "expires_at must be in the future", {
          issues: [{ path: "expires_at", code: "not_future", message: "must be in the future" }],
        });
      }
      const p = request.principal;
      const created = await createApiKey(ctx.pool, ctx.keyHashSecret, {
        organizationId: o.id,
        plan: o.plan,
        body: b,
        expiresAt: expires,
        createdFor: request.query.created_for,
        // An operator's keys belong to the installation's binding, not to a person (no creator checks).
        createdBy: p.kind === "session" ? p.userId : null,
        actor: actorOf(p),
      });
      // The only time the full key exists outside the caller.
      return reply.code(201).send({ api_key: keyJson(created.row), secret: created.secret });
    },
  );

  r.get(
    "/orgs/:org_id/api-keys/:key_id",
    {
      schema: {
        params: z.strictObject({ org_id: z.uuid(), key_id: z.uuid() }),
        response: { 200: apiKeyAnswerSchema },
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const k = await findKey(ctx.pool, o.id, request.params.key_id);
      // A management key is as unseen to a developer as in the list.
      if (!k || !mayHandle(k.kind, o.role)) throw new ServiceError("NOT_FOUND", "key not found");
      return { api_key: keyJson(k) };
    },
  );

  r.post(
    "/orgs/:org_id/api-keys/:key_id/revoke",
    {
      schema: {
        params: z.strictObject({ org_id: z.uuid(), key_id: z.uuid() }),
        response: { 200: apiKeyAnswerSchema },
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const after = await revokeApiKey(ctx.pool, {
        organizationId: o.id,
        keyId: request.params.key_id,
        role: o.role,
        mayHandle: (kind) => mayHandle(kind, o.role),
        actor: actorOf(request.principal),
      });
      return { api_key: keyJson(after) };
    },
  );
}
