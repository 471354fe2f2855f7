import type { FastifyInstance } from "fastify";
import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction } from "@countersign/core/store";
import { actorOf, audit } from "../audit/record.js";
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
import {
  countActiveDelegations,
  delegationJson,
  insertDelegation,
  listDelegations,
  lockDelegation,
  revokeDelegation,
} from "./store.js";
import { verifiedDelegation, verifiedRevocation } from "./verify.js";

/** SPEC 2.5, 8.5. */
export const MAX_ACTIVE_DELEGATIONS = 100;

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
      const now = new Date();
      const row = await inTransaction(ctx.pool, async (db) => {
        const agent = await readAgent(db, o.id, request.params.agent_id, true);
        const d = await verifiedDelegation(db, o.id, agent.id, request.body.delegation, now);
        if ((await countActiveDelegations(db, agent.id, now)) >= MAX_ACTIVE_DELEGATIONS) {
          throw new ServiceError(
            "CONFLICT",
            `an agent has at most ${MAX_ACTIVE_DELEGATIONS} active delegations; revoke one first`,
            { reason: "TOO_MANY_DELEGATIONS" },
          );
        }
        const inserted = await insertDelegation(db, o.id, agent.id, d);
        await audit(db, {
          organizationId: o.id,
          action: "delegation.created",
          actor: actorOf(request.principal),
          target: { type: "delegation", id: inserted.id },
          details: {
            agent_id: agent.id,
            object_id: d.id,
            permissions: d.body.payload.permissions,
            expires_at: d.body.payload.expires_at,
          },
        });
        return inserted;
      });
      return reply.code(201).send({ delegation: delegationJson(row) });
    },
  );

  r.post(
    "/orgs/:org_id/delegations/:delegation_id/revoke",
    { schema: { params: delegationParams, body: revocationBody, response: { 200: delegationAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      const now = new Date();
      const row = await inTransaction(ctx.pool, async (db) => {
        const d = await lockDelegation(db, o.id, request.params.delegation_id);
        if (d.revoked_at) throw new ServiceError("INVALID_STATE", "the delegation is already revoked");
        const rev = await verifiedRevocation(db, o.id, d, request.body.revocation, now);
        const after = await revokeDelegation(db, d.id, rev, now);
        await audit(db, {
          organizationId: o.id,
          action: "delegation.revoked",
          actor: actorOf(request.principal),
          target: { type: "delegation", id: d.id },
          details: { agent_id: d.agent_id, revocation_object_id: rev.id },
        });
        return after;
      });
      return { delegation: delegationJson(row) };
    },
  );
}
