import type { FastifyInstance } from "fastify";
import { actorOf } from "../audit/record.js";
import { requireAdminSignedIn } from "../configuration/admin-signed-in.js";
import type { ApiContext } from "../context.js";
import { recordDeclarations } from "../tools/declarations.js";
import { decodeCursor, timeCursor, keysetPage, organizationOf, typed } from "../http/shared.js";
import { createServer } from "./create.js";
import { deleteServer } from "./delete.js";
import {
  createBody,
  deleted,
  discoveryAnswer,
  listQuery,
  noQuery,
  orgParams,
  patchBody,
  serverAnswer,
  serverPage,
  serverParams,
} from "./schemas.js";
import { listServers, readServer, serverJson, toolIdsByUpstreamName } from "./store.js";
import { changeServer } from "./update.js";
import { discoverServer } from "./upstream.js";

/**
 * MCP servers and decision-only integrations (SPEC 2.3): the URL follows the
 * address rules of 6.4; the authorization header is stored encrypted and
 * never returned; a change to what enabled tools are bound to (URL,
 * credential, server identity) needs an admin signed in and leaves those
 * tools needing re-authorization (the Gateway refuses
 * TOOL_REAUTHORIZATION_REQUIRED until POST .../tools/<id>/authorize). The
 * changes are operations of their own (create.ts, update.ts, delete.ts).
 */
export async function mcpServerRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);

  r.get(
    "/orgs/:org_id/mcp-servers",
    { schema: { params: orgParams, querystring: listQuery, response: { 200: serverPage } } },
    async (request) => {
      const o = organizationOf(request);
      const { limit, cursor, kind } = request.query;
      const after = decodeCursor(cursor, timeCursor);
      const rows = await listServers(ctx.pool, o.id, { kind, after, limit: limit + 1 });
      return keysetPage(rows, limit, serverJson, (last) => [last.created_at.toISOString(), last.id]);
    },
  );

  r.get(
    "/orgs/:org_id/mcp-servers/:server_id",
    { schema: { params: serverParams, querystring: noQuery, response: { 200: serverAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      return { mcp_server: serverJson(await readServer(ctx.pool, o.id, request.params.server_id)) };
    },
  );

  r.post(
    "/orgs/:org_id/mcp-servers",
    { schema: { params: orgParams, body: createBody, response: { 201: serverAnswer } } },
    async (request, reply) => {
      const o = organizationOf(request);
      const created = await createServer(ctx, {
        organization: o,
        body: request.body,
        actor: actorOf(request.principal),
      });
      return reply.code(201).send({ mcp_server: serverJson(created) });
    },
  );

  r.patch(
    "/orgs/:org_id/mcp-servers/:server_id",
    { schema: { params: serverParams, body: patchBody, response: { 200: serverAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      const updated = await changeServer(ctx, {
        organizationId: o.id,
        serverId: request.params.server_id,
        body: request.body,
        actor: actorOf(request.principal),
        requireAdmin: (what) => requireAdminSignedIn(request, what),
      });
      return { mcp_server: serverJson(updated) };
    },
  );

  r.delete(
    "/orgs/:org_id/mcp-servers/:server_id",
    { schema: { params: serverParams, response: { 204: deleted } } },
    async (request, reply) => {
      const o = organizationOf(request);
      await deleteServer(ctx.pool, {
        organizationId: o.id,
        serverId: request.params.server_id,
        actor: actorOf(request.principal),
      });
      return reply.code(204).send();
    },
  );

  r.post(
    "/orgs/:org_id/mcp-servers/:server_id/discover",
    { schema: { params: serverParams, response: { 200: discoveryAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      const s = await readServer(ctx.pool, o.id, request.params.server_id);
      const found = await discoverServer(ctx, o.id, s);
      // What the server declares now is recorded on the tools made from it (a change needs re-authorization).
      await recordDeclarations(ctx.pool, actorOf(request.principal), o.id, s.id, found.tools);
      const byName = await toolIdsByUpstreamName(ctx.pool, s.id);
      return {
        tools: found.tools.map((t) => ({
          name: t.name,
          description: t.description,
          input_schema: t.input_schema,
          schema_valid: t.schema_problem === null,
          schema_problem: t.schema_problem,
          declaration: t.declaration,
          tool_id: byName.get(t.name) ?? null,
        })),
        pages: found.pages,
        bytes: found.bytes,
      };
    },
  );
}
