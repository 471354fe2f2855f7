import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { insertApiKey } from "@countersign/core/keys";
import { inTransaction } from "@countersign/core/store";
import { scopes } from "../../access/types.js";
import { actorOf, audit } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import { checkQuota } from "../../orgs/quota.js";
import {
  decodeCursor,
  timeCursor,
  isAdmin,
  keysetPage,
  nameSchema,
  organizationOf,
  pageQuery,
  typed,
  instantSchema,
} from "../../http/shared.js";

interface KeyRow {
  id: string;
  name: string;
  kind: "gateway" | "management";
  environment: string;
  prefix: string;
  agent_id: string | null;
  scopes: string[];
  created_by: string | null;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  revoked_reason: string | null;
  last_used_at: Date | null;
  expired: boolean;
}

const COLUMNS = `id, name, kind, environment, prefix, agent_id, scopes, created_by, created_at, expires_at, revoked_at,
  revoked_reason, last_used_at, (expires_at is not null and expires_at <= now()) as expired`;

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The key record of SPEC 2.2: never the secret, nor its hash. */
function keyJson(k: KeyRow) {
  return {
    id: k.id,
    name: k.name,
    kind: k.kind,
    environment: k.environment,
    prefix: k.prefix,
    agent_id: k.agent_id,
    scopes: k.scopes,
    state: k.revoked_at ? "revoked" : k.expired ? "expired" : "active",
    created_by: k.created_by,
    created_at: k.created_at.toISOString(),
    expires_at: iso(k.expires_at),
    revoked_at: iso(k.revoked_at),
    revoked_reason: k.revoked_reason,
    last_used_at: iso(k.last_used_at),
  };
}

const expiresAt = instantSchema;
const common = {
  name: nameSchema,
  environment: z.enum(["live", "test"]).default("live"),
  expires_at: expiresAt.optional(),
};
const createBody = z.discriminatedUnion("kind", [
  z.strictObject({ ...common, kind: z.literal("gateway"), agent_id: z.uuid() }),
  z.strictObject({
    ...common,
    kind: z.literal("management"),
    scopes: z
      .array(z.enum(scopes))
      .min(1)
      .refine((s) => new Set(s).size === s.length, "no duplicates"),
  }),
]);

/** Management keys are the Admins' to create, list and revoke (SPEC 5.2); gateway keys the Writers'. */
function mayHandle(kind: "gateway" | "management", role: string | null): boolean {
  return kind === "gateway" || isAdmin(role as never);
}

/** GET, POST /orgs/<org_id>/api-keys and POST .../api-keys/<key_id>/revoke (SPEC 2.2, 3.8, 5.2). */
export async function apiKeyRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  r.get(
    "/orgs/:org_id/api-keys",
    {
      schema: {
        params: z.strictObject({ org_id: z.uuid() }),
        querystring: z.strictObject({ ...pageQuery, kind: z.enum(["gateway", "management"]).optional() }),
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const { limit, cursor, kind } = request.query;
      const after = decodeCursor(cursor, timeCursor);
      // Developers see gateway keys only.
      const kinds = isAdmin(o.role)
        ? kind
          ? [kind]
          : ["gateway", "management"]
        : kind === "management"
          ? []
          : ["gateway"];
      const { rows } = await ctx.pool.query<KeyRow>(
        `select ${COLUMNS} from api_keys where organization_id = $1 and kind = any($2)
           and ($3::timestamptz is null or (created_at, id) < ($3::timestamptz, $4::uuid))
         order by created_at desc, id desc limit $5`,
        [o.id, kinds, after?.[0] ?? null, after?.[1] ?? null, limit + 1],
      );
      return keysetPage(rows, limit, keyJson, (last) => [last.created_at.toISOString(), last.id]);
    },
  );

  r.post(
    "/orgs/:org_id/api-keys",
    { schema: { params: z.strictObject({ org_id: z.uuid() }), body: createBody } },
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
      const created = await inTransaction(ctx.pool, async (db) => {
        // Serialize creations of one organization so the plan limit is exact.
        await db.query("select 1 from organizations where id = $1 for update", [o.id]);
        if (b.kind === "gateway") {
          const { rows } = await db.query("select 1 from agents where id = $1 and organization_id = $2", [
            b.agent_id,
            o.id,
          ]);
          if (!rows.length)
            throw new ServiceError("INVALID_INPUT", "agent_id names no agent of this organization", {
              issues: [{ path: "agent_id", code: "not_found", message: "no such agent" }],
            });
        }
        // Expired keys count until revoked (SPEC 5.2).
        const { rows: count } = await db.query<{ n: string }>(
          "select count(*) as n from api_keys where organization_id = $1 and revoked_at is null",
          [o.id],
        );
        checkQuota(o.plan, "apiKeys", Number(count[0]!.n));
        const p = request.principal;
        const k = await insertApiKey(db, ctx.keyHashSecret, {
          organizationId: o.id,
          kind: b.kind,
          environment: b.environment,
          name: b.name,
          agentId: b.kind === "gateway" ? b.agent_id : undefined,
          scopes: b.kind === "management" ? b.scopes : [],
          // An operator's keys belong to the installation's binding, not to a person (no creator checks).
          createdBy: p.kind === "session" ? p.userId : null,
          expiresAt: expires,
        });
        await audit(db, {
          organizationId: o.id,
          action: "api_key.created",
          actor: actorOf(p),
          target: { type: "api_key", id: k.id },
          details: {
            name: b.name,
            kind: b.kind,
            environment: b.environment,
            prefix: k.prefix,
            ...(b.kind === "management" ? { scopes: b.scopes } : { agent_id: b.agent_id }),
          },
        });
        const { rows } = await db.query<KeyRow>(`select ${COLUMNS} from api_keys where id = $1`, [k.id]);
        return { row: rows[0]!, key: k.key };
      });
      // The only time the full key exists outside the caller (SPEC 2.2).
      return reply.code(201).send({ api_key: keyJson(created.row), secret: created.key });
    },
  );

  r.post(
    "/orgs/:org_id/api-keys/:key_id/revoke",
    { schema: { params: z.strictObject({ org_id: z.uuid(), key_id: z.uuid() }) } },
    async (request) => {
      const o = organizationOf(request);
      return inTransaction(ctx.pool, async (db) => {
        const { rows } = await db.query<KeyRow>(
          `select ${COLUMNS} from api_keys where id = $1 and organization_id = $2 for update`,
          [request.params.key_id, o.id],
        );
        const k = rows[0];
        if (!k) throw new ServiceError("NOT_FOUND", "key not found");
        if (!mayHandle(k.kind, o.role))
          throw new ServiceError("FORBIDDEN", "only owners and admins handle management keys", {
            permission: "admins",
            role: o.role,
          });
        if (k.revoked_at) throw new ServiceError("INVALID_STATE", "the key is already revoked");
        const { rows: after } = await db.query<KeyRow>(
          `update api_keys set revoked_at = now(), revoked_reason = 'revoked' where id = $1 returning ${COLUMNS}`,
          [k.id],
        );
        await audit(db, {
          organizationId: o.id,
          action: "api_key.revoked",
          actor: actorOf(request.principal),
          target: { type: "api_key", id: k.id },
          details: { reason: "revoked", kind: k.kind },
        });
        return { api_key: keyJson(after[0]!) };
      });
    },
  );
}
