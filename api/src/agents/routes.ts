import type { FastifyInstance } from "fastify";
import { actorOf } from "../audit/record.js";
import { requireAdminSignedIn } from "../configuration/admin-signed-in.js";
import type { ApiContext } from "../context.js";
import { decodeCursor, timeCursor, keysetPage, organizationOf, typed } from "../http/shared.js";
import {
  agentAnswer,
  agentPage,
  agentParams,
  createBody,
  listQuery,
  noQuery,
  orgParams,
  patchBody,
} from "./schemas.js";
import { agentJson } from "./agent-json.js";
import { createAgent } from "./create.js";
import { listAgents, readAgent } from "./store.js";
import { updateAgent } from "./update.js";

/**
 * Agents (SPEC 2.2, 4.4): unique names, status, assigned policy. Assigning
 * or switching the policy is for Admins signed in. A disabled agent's
 * gateway keys stop working on their next request (SPEC 5.4.4: the key
 * check reads the agent's status every time), so nothing else is needed here.
 */
export async function agentRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  r.get(
    "/orgs/:org_id/agents",
    { schema: { params: orgParams, querystring: listQuery, response: { 200: agentPage } } },
    async (request) => {
      const o = organizationOf(request);
      const { limit, cursor, status } = request.query;
      const rows = await listAgents(ctx.pool, o.id, {
        status,
        after: decodeCursor(cursor, timeCursor),
        limit: limit + 1,
      });
      return keysetPage(rows, limit, agentJson, (last) => [last.created_at.toISOString(), last.id]);
    },
  );

  r.get(
    "/orgs/:org_id/agents/:agent_id",
    { schema: { params: agentParams, querystring: noQuery, response: { 200: agentAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      return { agent: agentJson(await readAgent(ctx.pool, o.id, request.params.agent_id)) };
    },
  );

  r.post(
    "/orgs/:org_id/agents",
    { schema: { params: orgParams, body: createBody, response: { 201: agentAnswer } } },
    async (request, reply) => {
      const o = organizationOf(request);
      if (request.body.policy_id !== null) requireAdminSignedIn(request, "assigning a policy");
      const created = await createAgent(ctx.pool, o, request.body, actorOf(request.principal));
      return reply.code(201).send({ agent: agentJson(created) });
    },
  );

  r.patch(
    "/orgs/:org_id/agents/:agent_id",
    { schema: { params: agentParams, body: patchBody, response: { 200: agentAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      const updated = await updateAgent(
        ctx.pool,
        o,
        request.params.agent_id,
        request.body,
        actorOf(request.principal),
        () => requireAdminSignedIn(request, "switching an agent's policy"),
      );
      return { agent: agentJson(updated) };
    },
  );
}
