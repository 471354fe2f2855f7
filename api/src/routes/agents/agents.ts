import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Queryable } from "@countersign/core/store";
import { actorOf, audit } from "../../audit/record.js";
import { requireAdminSignedIn } from "../../configuration/admin-signed-in.js";
import type { ApiContext } from "../../context.js";
import { checkQuota } from "../../orgs/quota.js";
import {
  agentCreateSchema as createBody,
  agentPatchSchema as patchBody,
  agentStatuses,
} from "@countersign/protocol/wire";
import {
  decodeCursor,
  timeCursor,
  isUniqueViolation,
  keysetPage,
  organizationOf,
  pageQuery,
  typed,
} from "../../http/shared.js";
import { AGENT_COLUMNS, AGENT_FROM, agentJson, type AgentRow } from "./agent-json.js";

const orgParams = z.strictObject({ org_id: z.uuid() });
const agentParams = z.strictObject({ org_id: z.uuid(), agent_id: z.uuid() });
const status = z.enum(agentStatuses);

const nameTaken = () => new ServiceError("NAME_TAKEN", "another agent of this organization has that name");

async function checkPolicy(db: Queryable, orgId: string, policyId: string | null): Promise<void> {
  if (policyId === null) return;
  const { rowCount } = await db.query("select 1 from policies where id = $1 and organization_id = $2", [
    policyId,
    orgId,
  ]);
  if (!rowCount)
    throw new ServiceError("POLICY_NOT_FOUND", "policy_id names no policy of this organization", {
      issues: [{ path: "policy_id", code: "not_found", message: "no such policy" }],
    });
}

export async function readAgent(
  db: Queryable,
  orgId: string,
  agentId: string,
  lock = false,
): Promise<AgentRow> {
  const { rows } = await db.query<AgentRow>(
    `select ${AGENT_COLUMNS} from ${AGENT_FROM} where a.id = $1 and a.organization_id = $2${lock ? " for update of a" : ""}`,
    [agentId, orgId],
  );
  if (!rows[0]) throw new ServiceError("NOT_FOUND", "agent not found");
  return rows[0];
}

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
    {
      schema: { params: orgParams, querystring: z.strictObject({ ...pageQuery, status: status.optional() }) },
    },
    async (request) => {
      const o = organizationOf(request);
      const { limit, cursor } = request.query;
      const after = decodeCursor(cursor, timeCursor);
      const { rows } = await ctx.pool.query<AgentRow>(
        `select ${AGENT_COLUMNS} from ${AGENT_FROM} where a.organization_id = $1 and ($2::text is null or a.status = $2)
         and ($3::timestamptz is null or (a.created_at, a.id) < ($3::timestamptz, $4::uuid))
       order by a.created_at desc, a.id desc limit $5`,
        [o.id, request.query.status ?? null, after?.[0] ?? null, after?.[1] ?? null, limit + 1],
      );
      return keysetPage(rows, limit, agentJson, (last) => [last.created_at.toISOString(), last.id]);
    },
  );

  r.get(
    "/orgs/:org_id/agents/:agent_id",
    { schema: { params: agentParams, querystring: z.strictObject({}) } },
    async (request) => {
      const o = organizationOf(request);
      return { agent: agentJson(await readAgent(ctx.pool, o.id, request.params.agent_id)) };
    },
  );

  r.post(
    "/orgs/:org_id/agents",
    { schema: { params: orgParams, body: createBody } },
    async (request, reply) => {
      const o = organizationOf(request);
      const b = request.body;
      if (b.policy_id !== null) requireAdminSignedIn(request, "assigning a policy");
      const created = await inTransaction(ctx.pool, async (db) => {
        // Serialize creations of one organization so the plan limit is exact.
        await db.query("select 1 from organizations where id = $1 for update", [o.id]);
        await checkPolicy(db, o.id, b.policy_id);
        const { rows: n } = await db.query<{ n: number }>(
          "select count(*)::int as n from agents where organization_id = $1",
          [o.id],
        );
        checkQuota(o.plan, "agents", n[0]!.n);
        let id: string;
        try {
          const { rows } = await db.query<{ id: string }>(
            "insert into agents (organization_id, name, status, policy_id) values ($1, $2, $3, $4) returning id",
            [o.id, b.name, b.status, b.policy_id],
          );
          id = rows[0]!.id;
        } catch (err) {
          if (isUniqueViolation(err)) throw nameTaken();
          throw err;
        }
        await audit(db, {
          organizationId: o.id,
          action: "agent.created",
          actor: actorOf(request.principal),
          target: { type: "agent", id },
          details: { name: b.name, status: b.status, policy_id: b.policy_id },
        });
        return readAgent(db, o.id, id);
      });
      return reply.code(201).send({ agent: agentJson(created) });
    },
  );

  r.patch(
    "/orgs/:org_id/agents/:agent_id",
    { schema: { params: agentParams, body: patchBody } },
    async (request) => {
      const o = organizationOf(request);
      const b = request.body;
      const updated = await inTransaction(ctx.pool, async (db) => {
        const before = await readAgent(db, o.id, request.params.agent_id, true);
        const switching = b.policy_id !== undefined && b.policy_id !== before.policy_id;
        if (switching) {
          requireAdminSignedIn(request, "switching an agent's policy");
          await checkPolicy(db, o.id, b.policy_id!);
        }
        const changes = (["name", "status", "policy_id"] as const).filter(
          (k) => b[k] !== undefined && b[k] !== before[k],
        );
        if (changes.length === 0) return before;
        try {
          await db.query(
            "update agents set name = coalesce($2, name), status = coalesce($3, status), policy_id = case when $4 then $5::uuid else policy_id end where id = $1",
            [before.id, b.name ?? null, b.status ?? null, switching, b.policy_id ?? null],
          );
        } catch (err) {
          if (isUniqueViolation(err)) throw nameTaken();
          throw err;
        }
        const actor = actorOf(request.principal);
        const target = { type: "agent", id: before.id };
        await audit(db, {
          organizationId: o.id,
          action: "agent.updated",
          actor,
          target,
          details: { fields: changes },
        });
        if (b.status !== undefined && b.status !== before.status) {
          await audit(db, {
            organizationId: o.id,
            action: b.status === "disabled" ? "agent.disabled" : "agent.enabled",
            actor,
            target,
          });
        }
        if (switching) {
          await audit(db, {
            organizationId: o.id,
            action: "agent.policy_switched",
            actor,
            target,
            details: { from_policy_id: before.policy_id, to_policy_id: b.policy_id },
          });
        }
        return readAgent(db, o.id, before.id);
      });
      return { agent: agentJson(updated) };
    },
  );
}
