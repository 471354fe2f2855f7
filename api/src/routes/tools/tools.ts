import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { amountMapping } from "@countersign/core/decision";
import { ServiceError } from "@countersign/protocol/errors";
import { checkInputSchema } from "@countersign/core/mcp-servers";
import { inTransaction, type Queryable } from "@countersign/core/store";
import { actorOf, audit } from "../../audit/record.js";
import { requireAdminSignedIn } from "../../configuration/admin-signed-in.js";
import type { ApiContext } from "../../context.js";
import { checkQuota } from "../../orgs/quota.js";
import { bindingDigest, sameBinding, toolBinding } from "../../tools/binding.js";
import { discoverServer, readServer } from "../mcp-servers/mcp-servers.js";
import type { ServerRow } from "../mcp-servers/server-json.js";
import {
  decodeCursor,
  timeCursor,
  isUniqueViolation,
  keysetPage,
  organizationOf,
  pageQuery,
  typed,
} from "../../http/shared.js";
import { TOOL_COLUMNS, toolJson, type ToolRow } from "./tool-json.js";

const orgParams = z.strictObject({ org_id: z.uuid() });
const toolParams = z.strictObject({ org_id: z.uuid(), tool_id: z.uuid() });
const oneLine = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[^\p{Cc}\p{Zl}\p{Zp}]*$/u, "one line without control characters");
/** SPEC 2.3: unique within the organization, 1 to 128 characters. */
const exposedName = oneLine(128);
const fields = {
  exposed_name: exposedName,
  upstream_name: oneLine(512),
  action: oneLine(200),
  description: z.string().max(4096).nullable(),
  input_schema: z.record(z.string(), z.unknown()),
  amount_mapping: amountMapping.nullable(),
  enabled: z.boolean(),
};
const createBody = z.strictObject({ mcp_server_id: z.uuid(), ...fields }).partial({
  upstream_name: true,
  description: true,
  input_schema: true,
  amount_mapping: true,
  enabled: true,
});
const patchBody = z.strictObject(fields).partial();
/** What an enabled tool means (SPEC 4.4): changing any of these on an enabled tool needs an admin signed in. */
const meaning = ["upstream_name", "action", "input_schema", "amount_mapping"] as const;

const nameTaken = () =>
  new ServiceError("NAME_TAKEN", "another tool of this organization is exposed under that name");

function requireSchema(schema: unknown): void {
  const check = checkInputSchema(schema);
  if (!check.ok)
    throw new ServiceError(
      "UPSTREAM_SCHEMA_INVALID",
      "the input schema is not an MCP object schema of at most 64 KiB",
      { reason: check.problem },
    );
}

async function readTool(db: Queryable, orgId: string, id: string, lock = false): Promise<ToolRow> {
  const { rows } = await db.query<ToolRow>(
    `select ${TOOL_COLUMNS} from tools where id = $1 and organization_id = $2${lock ? " for update" : ""}`,
    [id, orgId],
  );
  if (!rows[0]) throw new ServiceError("NOT_FOUND", "tool not found");
  return rows[0];
}

async function serverOfBody(db: Queryable, orgId: string, id: string): Promise<ServerRow> {
  try {
    return await readServer(db, orgId, id);
  } catch (err) {
    if (err instanceof ServiceError && err.code === "NOT_FOUND") {
      throw new ServiceError(
        "MCP_SERVER_NOT_FOUND",
        "mcp_server_id names no MCP server of this organization",
        { issues: [{ path: "mcp_server_id", code: "not_found", message: "no such MCP server" }] },
      );
    }
    throw err;
  }
}

/** The upstream tool's schema and description, from the server itself (a discovery, in a slot). */
async function upstreamTool(ctx: ApiContext, orgId: string, server: ServerRow, name: string) {
  const found = (await discoverServer(ctx, orgId, server)).tools.find((t) => t.name === name);
  if (!found)
    throw new ServiceError(
      "UPSTREAM_TOOL_NOT_FOUND",
      `the MCP server lists no tool named ${JSON.stringify(name)}`,
    );
  if (found.schema_problem)
    throw new ServiceError(
      "UPSTREAM_SCHEMA_INVALID",
      "the upstream tool's input schema is not an MCP object schema of at most 64 KiB",
      { reason: found.schema_problem },
    );
  return found;
}

const userOf = (request: FastifyRequest) =>
  request.principal.kind === "session" ? request.principal.userId : null;

/**
 * Tools (SPEC 2.3): an exposed name the agent calls, the upstream tool it
 * runs, the action policies decide on, an input schema and amount mapping.
 * A developer's (or a key's) tool is a disabled draft; enabling one, or
 * changing what an enabled tool means, needs an admin signed in. Enabling a
 * draft authorizes its binding; once authorized, a changed binding needs
 * POST .../authorize (docs/configuration-api.md, "Bindings").
 */
export async function toolRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);

  r.get(
    "/orgs/:org_id/tools",
    {
      schema: {
        params: orgParams,
        querystring: z.strictObject({
          ...pageQuery,
          mcp_server_id: z.uuid().optional(),
          enabled: z.enum(["true", "false"]).optional(),
        }),
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const { limit, cursor, mcp_server_id, enabled } = request.query;
      const after = decodeCursor(cursor, timeCursor);
      const { rows } = await ctx.pool.query<ToolRow>(
        `select ${TOOL_COLUMNS} from tools where organization_id = $1 and ($2::uuid is null or mcp_server_id = $2) and ($3::boolean is null or enabled = $3)
           and ($4::timestamptz is null or (created_at, id) < ($4::timestamptz, $5::uuid))
         order by created_at desc, id desc limit $6`,
        [
          o.id,
          mcp_server_id ?? null,
          enabled === undefined ? null : enabled === "true",
          after?.[0] ?? null,
          after?.[1] ?? null,
          limit + 1,
        ],
      );
      return keysetPage(rows, limit, toolJson, (last) => [last.created_at.toISOString(), last.id]);
    },
  );

  r.get(
    "/orgs/:org_id/tools/:tool_id",
    { schema: { params: toolParams, querystring: z.strictObject({}) } },
    async (request) => {
      const o = organizationOf(request);
      return { tool: toolJson(await readTool(ctx.pool, o.id, request.params.tool_id)) };
    },
  );

  r.post(
    "/orgs/:org_id/tools",
    { schema: { params: orgParams, body: createBody } },
    async (request, reply) => {
      const o = organizationOf(request);
      const b = request.body;
      if (b.enabled) requireAdminSignedIn(request, "enabling a tool");
      const server = await serverOfBody(ctx.pool, o.id, b.mcp_server_id);
      const upstreamName = b.upstream_name ?? b.exposed_name;
      let schema: unknown = b.input_schema;
      let description = b.description ?? null;
      if (schema !== undefined) requireSchema(schema);
      else if (server.kind === "mcp") {
        // Tool creation that discovers (SPEC 8.1): the schema comes from the server.
        const found = await upstreamTool(ctx, o.id, server, upstreamName);
        schema = found.input_schema;
        description ??= found.description;
      } else schema = { type: "object" };
      const created = await inTransaction(ctx.pool, async (db) => {
        await db.query("select 1 from organizations where id = $1 for update", [o.id]);
        const current = await readServer(db, o.id, server.id, true);
        const { rows: n } = await db.query<{ n: number }>(
          "select count(*)::int as n from tools where organization_id = $1",
          [o.id],
        );
        checkQuota(o.plan, "tools", n[0]!.n);
        const binding = toolBinding(current, {
          upstream_name: upstreamName,
          input_schema: schema,
          amount_mapping: b.amount_mapping ?? null,
        });
        let id: string;
        try {
          const { rows } = await db.query<{ id: string }>(
            `insert into tools (organization_id, mcp_server_id, exposed_name, upstream_name, action, description, input_schema, amount_mapping, enabled, binding,
                              authorized_binding, authorized_at, authorized_by)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, case when $9 then $10::jsonb end, case when $9 then now() end, case when $9 then $11::uuid end) returning id`,
            [
              o.id,
              server.id,
              b.exposed_name,
              upstreamName,
              b.action,
              description,
              JSON.stringify(schema),
              b.amount_mapping ? JSON.stringify(b.amount_mapping) : null,
              !!b.enabled,
              JSON.stringify(binding),
              userOf(request),
            ],
          );
          id = rows[0]!.id;
        } catch (err) {
          if (isUniqueViolation(err)) throw nameTaken();
          throw err;
        }
        const actor = actorOf(request.principal);
        await audit(db, {
          organizationId: o.id,
          action: "tool.created",
          actor,
          target: { type: "tool", id },
          details: {
            exposed_name: b.exposed_name,
            action: b.action,
            mcp_server_id: server.id,
            enabled: !!b.enabled,
          },
        });
        if (b.enabled)
          await audit(db, {
            organizationId: o.id,
            action: "tool.authorized",
            actor,
            target: { type: "tool", id },
            details: { binding_digest: bindingDigest(binding) },
          });
        return readTool(db, o.id, id);
      });
      return reply.code(201).send({ tool: toolJson(created) });
    },
  );

  r.patch(
    "/orgs/:org_id/tools/:tool_id",
    { schema: { params: toolParams, body: patchBody } },
    async (request) => {
      const o = organizationOf(request);
      const b = request.body;
      if (b.input_schema !== undefined) requireSchema(b.input_schema);
      const before = await readTool(ctx.pool, o.id, request.params.tool_id);
      // A new upstream tool without a schema: read the schema from the server (a discovery).
      let schema: unknown = b.input_schema;
      if (schema === undefined && b.upstream_name !== undefined && b.upstream_name !== before.upstream_name) {
        const server = await readServer(ctx.pool, o.id, before.mcp_server_id);
        if (server.kind === "mcp")
          schema = (await upstreamTool(ctx, o.id, server, b.upstream_name)).input_schema;
      }
      const updated = await inTransaction(ctx.pool, async (db) => {
        const t = await readTool(db, o.id, request.params.tool_id, true);
        const server = await readServer(db, o.id, t.mcp_server_id, true);
        const next = {
          exposed_name: b.exposed_name ?? t.exposed_name,
          upstream_name: b.upstream_name ?? t.upstream_name,
          action: b.action ?? t.action,
          description: b.description !== undefined ? b.description : t.description,
          input_schema: schema !== undefined ? schema : t.input_schema,
          amount_mapping: b.amount_mapping !== undefined ? b.amount_mapping : t.amount_mapping,
          enabled: b.enabled ?? t.enabled,
        };
        const changesMeaning = meaning.some((k) => JSON.stringify(next[k]) !== JSON.stringify(t[k]));
        const enabling = next.enabled && !t.enabled;
        if (enabling) requireAdminSignedIn(request, "enabling a tool");
        if (t.enabled && changesMeaning) requireAdminSignedIn(request, "changing what an enabled tool means");
        const binding = toolBinding(server, next);
        let authorized = t.authorized_binding;
        if (enabling) {
          // Enabling a draft authorizes what it is bound to; a tool authorized before and bound to something else since is re-authorized explicitly.
          if (authorized && !sameBinding(authorized, binding)) {
            throw new ServiceError(
              "BINDING_CHANGED",
              "the tool is bound to something else than was authorized; review and authorize the new binding first (POST .../authorize)",
              { binding_digest: bindingDigest(binding) },
            );
          }
          authorized = binding;
        }
        try {
          await db.query(
            `update tools set exposed_name = $2, upstream_name = $3, action = $4, description = $5, input_schema = $6, amount_mapping = $7, enabled = $8, binding = $9,
                  authorized_binding = $10, authorized_at = case when $11 then now() else authorized_at end, authorized_by = case when $11 then $12::uuid else authorized_by end,
                  updated_at = now()
            where id = $1`,
            [
              t.id,
              next.exposed_name,
              next.upstream_name,
              next.action,
              next.description,
              JSON.stringify(next.input_schema),
              next.amount_mapping == null ? null : JSON.stringify(next.amount_mapping),
              next.enabled,
              JSON.stringify(binding),
              authorized ? JSON.stringify(authorized) : null,
              enabling && !t.authorized_binding,
              userOf(request),
            ],
          );
        } catch (err) {
          if (isUniqueViolation(err)) throw nameTaken();
          throw err;
        }
        const actor = actorOf(request.principal);
        const target = { type: "tool", id: t.id };
        const changed = Object.keys(b).filter((k) => b[k as keyof typeof b] !== undefined);
        await audit(db, {
          organizationId: o.id,
          action: "tool.updated",
          actor,
          target,
          details: { fields: changed, binding_changed: !sameBinding(t.binding, binding) },
        });
        if (enabling) await audit(db, { organizationId: o.id, action: "tool.enabled", actor, target });
        if (!next.enabled && t.enabled)
          await audit(db, { organizationId: o.id, action: "tool.disabled", actor, target });
        return readTool(db, o.id, t.id);
      });
      return { tool: toolJson(updated) };
    },
  );

  r.post(
    "/orgs/:org_id/tools/:tool_id/authorize",
    {
      schema: {
        params: toolParams,
        body: z.strictObject({ binding_digest: z.string().regex(/^sha256:[0-9a-f]{64}$/) }),
      },
    },
    async (request) => {
      const o = organizationOf(request);
      // The route table refuses keys (ADMIN_REQUIRED after the scope check); an operator is no person either.
      requireAdminSignedIn(request, "authorizing a tool's binding");
      const updated = await inTransaction(ctx.pool, async (db) => {
        const t = await readTool(db, o.id, request.params.tool_id, true);
        const digest = bindingDigest(t.binding);
        if (digest !== request.body.binding_digest) {
          throw new ServiceError(
            "BINDING_CHANGED",
            "the tool's binding changed since it was shown; review it again",
            { binding_digest: digest },
          );
        }
        await db.query(
          "update tools set authorized_binding = binding, authorized_at = now(), authorized_by = $2, updated_at = now() where id = $1",
          [t.id, userOf(request)],
        );
        await audit(db, {
          organizationId: o.id,
          action: "tool.authorized",
          actor: actorOf(request.principal),
          target: { type: "tool", id: t.id },
          details: { binding_digest: digest },
        });
        return readTool(db, o.id, t.id);
      });
      return { tool: toolJson(updated) };
    },
  );
}
