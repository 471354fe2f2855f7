import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Queryable } from "@countersign/core/store";
import { actorOf, audit } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import { looksLikeSecret } from "../../observe/secret-like.js";
import {
  closeExpiredWindows,
  endWindows,
  WINDOW_COLUMNS,
  WINDOW_FROM,
  windowJson,
  type WindowRow,
} from "../../observe/windows.js";
import { enforceAnalysisLimit } from "../../policies/analysis-limit.js";
import { readAgent } from "../agents/agents.js";
import { decodeCursor, timeCursor, keysetPage, organizationOf, pageQuery, typed } from "../../http/shared.js";

/** SPEC 8.5: observe windows shown per agent. */
export const WINDOWS_SHOWN_PER_AGENT = 20;
/** The relaxed calls a report lists, newest first; the counts cover them all. */
export const REPORT_CALLS_LISTED = 100;

const orgParams = z.strictObject({ org_id: z.uuid() });
const agentParams = z.strictObject({ org_id: z.uuid(), agent_id: z.uuid() });
const windowParams = z.strictObject({ org_id: z.uuid(), window_id: z.uuid() });
const startBody = z.strictObject({
  hours: z.number().int().min(1).max(168),
  live: z.boolean().default(false),
  /** The agent's name typed again: starting a window relaxes enforcement for that agent. */
  confirmation: z.string().max(200),
  reason: z.string().max(500).optional(),
});

const userOf = (request: FastifyRequest) =>
  request.principal.kind === "session" ? request.principal.userId : null;

async function readWindow(db: Queryable, orgId: string, id: string): Promise<WindowRow> {
  const { rows } = await db.query<WindowRow>(
    `select ${WINDOW_COLUMNS} from ${WINDOW_FROM} where w.id = $1 and w.organization_id = $2`,
    [id, orgId],
  );
  if (!rows[0]) throw new ServiceError("NOT_FOUND", "observe window not found");
  return rows[0];
}

/**
 * Observe windows (SPEC 3.9): for a few hours an agent's calls are decided
 * under `observe`: what the policy would refuse or hold for approval is
 * allowed and reported, while explicit deny rules, guards and delegations
 * stay enforced (the decision pipeline's part). One open window per agent;
 * never extended; ended by the end calls, by expiry, or by the owner's
 * settings changes (api/src/observe/windows.ts).
 */
export async function observeRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);

  r.post(
    "/orgs/:org_id/agents/:agent_id/observe",
    { schema: { params: agentParams, body: startBody } },
    async (request, reply) => {
      const o = organizationOf(request);
      const b = request.body;
      const now = new Date();
      const started = await inTransaction(ctx.pool, async (db) => {
        const { rows: settings } = await db.query<{
          observe_max_hours: number;
          observe_live_opt_in: boolean | null;
        }>("select observe_max_hours, observe_live_opt_in from organizations where id = $1 for update", [
          o.id,
        ]);
        const agent = await readAgent(db, o.id, request.params.agent_id, true);
        const s = settings[0]!;
        if (s.observe_max_hours === 0)
          throw new ServiceError(
            "OBSERVE_DISABLED",
            "observe windows are off for this organization (observe_max_hours is 0); the owner turns them on",
          );
        if (b.live && !s.observe_live_opt_in)
          throw new ServiceError(
            "OBSERVE_LIVE_NOT_ALLOWED",
            "the owner has not opted in to observe windows for live keys",
          );
        if (b.hours > s.observe_max_hours) {
          throw new ServiceError(
            "OBSERVE_WINDOW_TOO_LONG",
            `a window lasts at most ${s.observe_max_hours} hours here`,
            { issues: [{ path: "hours", code: "too_big", message: `at most ${s.observe_max_hours}` }] },
          );
        }
        if (b.confirmation !== agent.name)
          throw new ServiceError("CONFIRMATION_MISMATCH", "type the agent's name exactly to confirm");
        if (b.reason !== undefined && looksLikeSecret(b.reason))
          throw new ServiceError(
            "REASON_REJECTED",
            "the reason looks like a secret; it would be shown to every member, so it is not stored",
          );
        if (agent.policy_id) {
          const { rows: p } = await db.query<{ stopped: boolean }>(
            "select emergency_stopped_at is not null as stopped from policies where id = $1",
            [agent.policy_id],
          );
          if (p[0]?.stopped)
            throw new ServiceError(
              "EMERGENCY_ACTIVE",
              "the agent's policy is emergency-stopped; no window can start",
            );
        }
        await closeExpiredWindows(db, o.id, now);
        const { rowCount } = await db.query(
          "select 1 from observe_windows where agent_id = $1 and ended_at is null",
          [agent.id],
        );
        if (rowCount)
          throw new ServiceError(
            "OBSERVE_ACTIVE",
            "this agent already has an open observe window; windows are never extended",
          );
        const { rows } = await db.query<{ id: string }>(
          `insert into observe_windows (organization_id, agent_id, policy_id, started_by, started_at, hours, ends_at, live, reason)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning id`,
          [
            o.id,
            agent.id,
            agent.policy_id,
            userOf(request),
            now,
            b.hours,
            new Date(now.getTime() + b.hours * 3_600_000),
            b.live,
            b.reason ?? null,
          ],
        );
        const id = rows[0]!.id;
        await audit(db, {
          organizationId: o.id,
          action: "observe_window.started",
          actor: actorOf(request.principal),
          target: { type: "observe_window", id },
          details: { agent_id: agent.id, hours: b.hours, live: b.live, reason_given: b.reason !== undefined },
        });
        return readWindow(db, o.id, id);
      });
      return reply.code(201).send({ observe_window: windowJson(started) });
    },
  );

  r.post(
    "/orgs/:org_id/agents/:agent_id/observe/end",
    { schema: { params: agentParams } },
    async (request) => {
      const o = organizationOf(request);
      const ended = await inTransaction(ctx.pool, async (db) => {
        const agent = await readAgent(db, o.id, request.params.agent_id, true);
        return endWindows(db, {
          organizationId: o.id,
          now: new Date(),
          reason: "ended",
          actor: actorOf(request.principal),
          endedBy: userOf(request),
          where: "w.agent_id = $5",
          args: [agent.id],
        });
      });
      if (ended.length === 0)
        throw new ServiceError("NO_OPEN_WINDOW", "this agent has no open observe window");
      return { observe_window: windowJson(ended[0]!) };
    },
  );

  r.post("/orgs/:org_id/observe/end-all", { schema: { params: orgParams } }, async (request) => {
    const o = organizationOf(request);
    const ended = await inTransaction(ctx.pool, async (db) => {
      await db.query("select 1 from organizations where id = $1 for update", [o.id]);
      return endWindows(db, {
        organizationId: o.id,
        now: new Date(),
        reason: "ended",
        actor: actorOf(request.principal),
        endedBy: userOf(request),
        where: "true",
        args: [],
      });
    });
    return { ended: ended.map(windowJson) };
  });

  r.get(
    "/orgs/:org_id/agents/:agent_id/observe",
    { schema: { params: agentParams, querystring: z.strictObject({}) } },
    async (request) => {
      const o = organizationOf(request);
      const agent = await readAgent(ctx.pool, o.id, request.params.agent_id);
      await closeExpiredWindows(ctx.pool, o.id, new Date());
      const { rows } = await ctx.pool.query<WindowRow>(
        `select ${WINDOW_COLUMNS} from ${WINDOW_FROM} where w.agent_id = $1 order by w.started_at desc, w.id desc limit ${WINDOWS_SHOWN_PER_AGENT}`,
        [agent.id],
      );
      const open = rows.find((w) => !w.ended_at);
      return { open: open ? windowJson(open) : null, items: rows.map(windowJson) };
    },
  );

  r.get(
    "/orgs/:org_id/observe-windows",
    {
      schema: {
        params: orgParams,
        querystring: z.strictObject({
          ...pageQuery,
          state: z.enum(["open", "ended"]).optional(),
          agent_id: z.uuid().optional(),
        }),
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const { limit, cursor, state, agent_id } = request.query;
      await closeExpiredWindows(ctx.pool, o.id, new Date());
      const after = decodeCursor(cursor, timeCursor);
      const { rows } = await ctx.pool.query<WindowRow>(
        `select ${WINDOW_COLUMNS} from ${WINDOW_FROM} where w.organization_id = $1
           and ($2::text is null or (w.ended_at is null) = ($2 = 'open'))
           and ($3::uuid is null or w.agent_id = $3)
           and ($4::timestamptz is null or (w.started_at, w.id) < ($4::timestamptz, $5::uuid))
         order by w.started_at desc, w.id desc limit $6`,
        [o.id, state ?? null, agent_id ?? null, after?.[0] ?? null, after?.[1] ?? null, limit + 1],
      );
      return keysetPage(rows, limit, windowJson, (last) => [last.started_at.toISOString(), last.id]);
    },
  );

  r.get(
    "/orgs/:org_id/observe-windows/:window_id",
    { schema: { params: windowParams, querystring: z.strictObject({}) } },
    async (request) => {
      const o = organizationOf(request);
      await closeExpiredWindows(ctx.pool, o.id, new Date());
      return { observe_window: windowJson(await readWindow(ctx.pool, o.id, request.params.window_id)) };
    },
  );

  r.get(
    "/orgs/:org_id/observe-windows/:window_id/report",
    { schema: { params: windowParams, querystring: z.strictObject({}) } },
    async (request) => {
      const o = organizationOf(request);
      await closeExpiredWindows(ctx.pool, o.id, new Date());
      const w = await readWindow(ctx.pool, o.id, request.params.window_id);
      await enforceAnalysisLimit(ctx.pool, request, o.id);
      const { rows: counts } = await ctx.pool.query<{
        decisions: number;
        relaxed: number;
        by_effect: Record<string, number> | null;
        by_status: Record<string, number> | null;
      }>(
        `select count(*)::int as decisions, count(*) filter (where relaxed)::int as relaxed,
              (select json_object_agg(coalesce(e, 'none'), n) from (select policy_effect as e, count(*)::int as n from protected_actions where observe_window_id = $1 group by 1) x) as by_effect,
              (select json_object_agg(s, n) from (select status as s, count(*)::int as n from protected_actions where observe_window_id = $1 group by 1) y) as by_status
         from protected_actions where observe_window_id = $1`,
        [w.id],
      );
      const { rows: calls } = await ctx.pool.query(
        `select id, tool_name, action, environment, status, policy_effect, rule_id, decision_code, created_at
         from protected_actions where observe_window_id = $1 and relaxed order by created_at desc, id desc limit ${REPORT_CALLS_LISTED}`,
        [w.id],
      );
      const c = counts[0]!;
      return {
        report: {
          observe_window: windowJson(w),
          decisions: c.decisions,
          relaxed: c.relaxed,
          by_policy_effect: c.by_effect ?? {},
          by_status: c.by_status ?? {},
          relaxed_calls: calls.map((a) => ({
            protected_action_id: a.id,
            tool: a.tool_name,
            action: a.action,
            environment: a.environment,
            status: a.status,
            policy_effect: a.policy_effect,
            rule_id: a.rule_id,
            decision_code: a.decision_code,
            created_at: a.created_at.toISOString(),
          })),
          relaxed_calls_truncated: c.relaxed > calls.length,
        },
      };
    },
  );
}
