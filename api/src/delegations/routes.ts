import type { FastifyInstance } from "fastify";
import { actorOf } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { decodeCursor, timeCursor, keysetPage, organizationOf, typed } from "../http/shared.js";
import { readAgent } from "../agents/store.js";
import {
  agentParams,
  delegationAnswer,
  delegationPage,
  delegationParams,
  listQuery,
  revocationBody,
  submissionBody,
} from "./schemas.js";
import { createDelegation } from "./create.js";
import { revokeDelegationBySignature } from "./revoke.js";
import { delegationJson, listDelegations } from "./store.js";

/**
 * Delegations (SPEC 2.5): an owner or admin submits a DELEGATION already
 * signed by the organization principal in their browser; we verify it and
 * store it. Revocation is a REVOCATION signed by the same principal; the
 * decision pipeline reads unrevoked delegations on every call, so it takes
 * effect on the next decision.
 */
export async function delegationRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);

  r.get(
    "/orgs/:org_id/agents/:agent_id/delegations",
    { schema: { params: agentParams, querystring: listQuery, response: { 200: delegationPage } } },
    async (request) => {
      const o = organizationOf(request);
      await readAgent(ctx.pool, o.id, request.params.agent_id);
      const { limit, cursor } = request.query;
      const rows = await listDelegations(ctx.pool, o.id, request.params.agent_id, {
        after: decodeCursor(cursor, timeCursor),
        limit: limit + 1,
      });
      return keysetPage(
        rows,
        limit,
        (d) => delegationJson(d),
        (last) => [last.created_at.toISOString(), last.id],
      );
    },
  );

  r.post(
    "/orgs/:org_id/agents/:agent_id/delegations",
    { schema: { params: agentParams, body: submissionBody, response: { 201: delegationAnswer } } },
    async (request, reply) => {
      const o = organizationOf(request);
      const row = await createDelegation(ctx.pool, {
        organizationId: o.id,
        agentId: request.params.agent_id,
        delegation: request.body.delegation,
        now: new Date(),
        actor: actorOf(request.principal),
      });
      return reply.code(201).send({ delegation: delegationJson(row) });
    },
  );

  r.post(
    "/orgs/:org_id/delegations/:delegation_id/revoke",
    { schema: { params: delegationParams, body: revocationBody, response: { 200: delegationAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      const row = await revokeDelegationBySignature(ctx.pool, {
        organizationId: o.id,
        delegationId: request.params.delegation_id,
        revocation: request.body.revocation,
        now: new Date(),
        actor: actorOf(request.principal),
      });
      return { delegation: delegationJson(row) };
    },
  );
}
