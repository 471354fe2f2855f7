import type { FastifyInstance, FastifyRequest } from "fastify";
import { ServiceError } from "@countersign/protocol/errors";
import type { ToolDeclaration } from "@countersign/protocol/wire";
import { checkInputSchema } from "@countersign/core/mcp-servers";
import { inTransaction, type Queryable } from "@countersign/core/store";
import { actorOf, audit } from "../audit/record.js";
import { requireAdminSignedIn } from "../configuration/admin-signed-in.js";
import type { ApiContext } from "../context.js";
import { checkQuota } from "../orgs/quota.js";
import { bindingDigest, sameBinding, toolBinding } from "./binding.js";
import { readServer, type ServerRow } from "../mcp-servers/store.js";
import { discoverServer } from "../mcp-servers/upstream.js";
import { decodeCursor, timeCursor, keysetPage, organizationOf, typed } from "../http/shared.js";
import {
  authorizeBody,
  createBody,
  listQuery,
  noQuery,
  orgParams,
  patchBody,
  toolAnswer,
  toolPage,
  toolParams,
} from "./schemas.js";
import {
  authorizeBinding,
  insertTool,
  listTools,
  lockAndCountTools,
  readTool,
  toolJson,
  updateTool,
} from "./store.js";

/** What an enabled tool means (SPEC 4.4): changing any of these on an enabled tool needs an admin signed in. */
const meaning = ["upstream_name", "action", "input_schema", "amount_mapping"] as const;

function requireSchema(schema: unknown): void {
  const check = checkInputSchema(schema);
  if (!check.ok)
    throw new ServiceError(
      "UPSTREAM_SCHEMA_INVALID",
      "the input schema is not an MCP object schema of at most 64 KiB",
      { reason: check.problem },
    );
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
    { schema: { params: orgParams, querystring: listQuery, response: { 200: toolPage } } },
    async (request) => {
      const o = organizationOf(request);
      const { limit, cursor, mcp_server_id, enabled } = request.query;
      const rows = await listTools(ctx.pool, o.id, {
        serverId: mcp_server_id,
        enabled: enabled === undefined ? undefined : enabled === "true",
        after: decodeCursor(cursor, timeCursor),
        limit: limit + 1,
      });
      return keysetPage(rows, limit, toolJson, (last) => [last.created_at.toISOString(), last.id]);
    },
  );

  r.get(
    "/orgs/:org_id/tools/:tool_id",
    { schema: { params: toolParams, querystring: noQuery, response: { 200: toolAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      return { tool: toolJson(await readTool(ctx.pool, o.id, request.params.tool_id)) };
    },
  );

  r.post(
    "/orgs/:org_id/tools",
    { schema: { params: orgParams, body: createBody, response: { 201: toolAnswer } } },
    async (request, reply) => {
      const o = organizationOf(request);
      const b = request.body;
      if (b.enabled) requireAdminSignedIn(request, "enabling a tool");
      const server = await serverOfBody(ctx.pool, o.id, b.mcp_server_id);
      const upstreamName = b.upstream_name ?? b.exposed_name;
      let schema: unknown = b.input_schema;
      let description = b.description ?? null;
      let declaration: ToolDeclaration | null = null;
      if (schema !== undefined) requireSchema(schema);
      else if (server.kind === "mcp") {
        // Tool creation that discovers (SPEC 8.1): the schema and the rest of the declaration come from the server.
        const found = await upstreamTool(ctx, o.id, server, upstreamName);
        schema = found.input_schema;
        description ??= found.description;
        declaration = found.declaration;
      } else schema = { type: "object" };
      const created = await inTransaction(ctx.pool, async (db) => {
        const count = await lockAndCountTools(db, o.id);
        const current = await readServer(db, o.id, server.id, true);
        checkQuota(o.plan, "tools", count);
        const binding = toolBinding(current, {
          upstream_name: upstreamName,
          input_schema: schema,
          amount_mapping: b.amount_mapping ?? null,
          declaration,
        });
        const id = await insertTool(
          db,
          o.id,
          server.id,
          {
            exposed_name: b.exposed_name,
            upstream_name: upstreamName,
            action: b.action,
            description,
            input_schema: schema,
            amount_mapping: b.amount_mapping ?? null,
            declaration,
            enabled: !!b.enabled,
          },
          binding,
          userOf(request),
        );
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
    { schema: { params: toolParams, body: patchBody, response: { 200: toolAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      const b = request.body;
      if (b.input_schema !== undefined) requireSchema(b.input_schema);
      const before = await readTool(ctx.pool, o.id, request.params.tool_id);
      // A new upstream tool without a schema: read the schema and declaration from the server (a
      // discovery). A new upstream tool given its schema carries no declaration until a discovery.
      let schema: unknown = b.input_schema;
      const newUpstream = b.upstream_name !== undefined && b.upstream_name !== before.upstream_name;
      let declaration: ToolDeclaration | null | undefined = newUpstream ? null : undefined;
      if (schema === undefined && newUpstream) {
        const server = await readServer(ctx.pool, o.id, before.mcp_server_id);
        if (server.kind === "mcp") {
          const found = await upstreamTool(ctx, o.id, server, b.upstream_name!);
          schema = found.input_schema;
          declaration = found.declaration;
        }
      }
      const updated = await inTransaction(ctx.pool, async (db) => {
        // The server's row before the tool's, the order discovery and tool creation lock them in
        // (a tool never moves to another server), so concurrent changes wait instead of deadlocking.
        const server = await readServer(db, o.id, before.mcp_server_id, true);
        const t = await readTool(db, o.id, request.params.tool_id, true);
        const next = {
          exposed_name: b.exposed_name ?? t.exposed_name,
          upstream_name: b.upstream_name ?? t.upstream_name,
          action: b.action ?? t.action,
          description: b.description !== undefined ? b.description : t.description,
          input_schema: schema !== undefined ? schema : t.input_schema,
          amount_mapping: b.amount_mapping !== undefined ? b.amount_mapping : t.amount_mapping,
          declaration: declaration !== undefined ? declaration : t.declaration,
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
        await updateTool(
          db,
          t.id,
          next,
          binding,
          authorized,
          enabling && !t.authorized_binding,
          userOf(request),
        );
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
      schema: { params: toolParams, body: authorizeBody, response: { 200: toolAnswer } },
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
        await authorizeBinding(db, t.id, userOf(request));
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
