import type { FastifyInstance, FastifyRequest } from "fastify";
import { actorOf } from "../audit/record.js";
import { requireAdminSignedIn } from "../configuration/admin-signed-in.js";
import type { ApiContext } from "../context.js";
import { decodeCursor, timeCursor, keysetPage, organizationOf, typed } from "../http/shared.js";
import { authorizeTool } from "./authorize.js";
import { createTool } from "./create.js";
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
import { listTools, readTool, toolJson } from "./store.js";
import { changeTool } from "./update.js";

const userOf = (request: FastifyRequest) =>
  request.principal.kind === "session" ? request.principal.userId : null;

/**
 * Tools (SPEC 2.3): an exposed name the agent calls, the upstream tool it
 * runs, the action policies decide on, an input schema and amount mapping.
 * A developer's (or a key's) tool is a disabled draft; enabling one, or
 * changing what an enabled tool means, needs an admin signed in. Enabling a
 * draft authorizes its binding; once authorized, a changed binding needs
 * POST .../authorize (docs/configuration-api.md, "Bindings"). The changes are
 * operations of their own (create.ts, update.ts, authorize.ts).
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
      if (request.body.enabled) requireAdminSignedIn(request, "enabling a tool");
      const created = await createTool(ctx, {
        organization: o,
        body: request.body,
        actor: actorOf(request.principal),
        userId: userOf(request),
      });
      return reply.code(201).send({ tool: toolJson(created) });
    },
  );

  r.patch(
    "/orgs/:org_id/tools/:tool_id",
    { schema: { params: toolParams, body: patchBody, response: { 200: toolAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      const updated = await changeTool(ctx, {
        organizationId: o.id,
        toolId: request.params.tool_id,
        body: request.body,
        actor: actorOf(request.principal),
        userId: userOf(request),
        requireAdmin: (what) => requireAdminSignedIn(request, what),
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
      const updated = await authorizeTool(ctx.pool, {
        organizationId: o.id,
        toolId: request.params.tool_id,
        bindingDigest: request.body.binding_digest,
        actor: actorOf(request.principal),
        userId: userOf(request),
      });
      return { tool: toolJson(updated) };
    },
  );
}
