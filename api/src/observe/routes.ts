import type { FastifyInstance, FastifyRequest } from "fastify";
import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction } from "@countersign/core/store";
import { actorOf, audit } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { looksLikeSecret } from "./secret-like.js";
import { closeExpiredWindows, endWindows, windowJson } from "./windows.js";
import { enforceAnalysisLimit } from "../policies/analysis-limit.js";
import { readAgent } from "../agents/store.js";
import { decodeCursor, timeCursor, keysetPage, organizationOf, typed } from "../http/shared.js";
import {
  agentParams,
  agentWindows,
  endedAll,
  listQuery,
  noQuery,
  orgParams,
  reportAnswer,
  startBody,
  windowAnswer,
  windowPage,
  windowParams,
} from "./schemas.js";
import {
  hasOpenWindow,
  insertWindow,
  isEmergencyStopped,
  latestWindowsOf,
  listWindows,
  lockObserveSettings,
  lockOrganization,
  readWindow,
  windowReport,
} from "./store.js";

const userOf = (request: FastifyRequest) =>
  request.principal.kind === "session" ? request.principal.userId : null;

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
    { schema: { params: agentParams, body: startBody, response: { 201: windowAnswer } } },
    async (request, reply) => {
      const o = organizationOf(request);
      const b = request.body;
      const now = new Date();
      const started = await inTransaction(ctx.pool, async (db) => {
        const s = await lockObserveSettings(db, o.id);
        const agent = await readAgent(db, o.id, request.params.agent_id, true);
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
        if (agent.policy_id && (await isEmergencyStopped(db, agent.policy_id)))
          throw new ServiceError(
            "EMERGENCY_ACTIVE",
            "the agent's policy is emergency-stopped; no window can start",
          );
        await closeExpiredWindows(db, o.id, now);
        if (await hasOpenWindow(db, agent.id))
          throw new ServiceError(
            "OBSERVE_ACTIVE",
            "this agent already has an open observe window; windows are never extended",
          );
        const id = await insertWindow(db, {
          organizationId: o.id,
          agentId: agent.id,
          policyId: agent.policy_id,
          startedBy: userOf(request),
          startedAt: now,
          hours: b.hours,
          live: b.live,
          reason: b.reason ?? null,
        });
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
    { schema: { params: agentParams, response: { 200: windowAnswer } } },
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

  r.post(
    "/orgs/:org_id/observe/end-all",
    { schema: { params: orgParams, response: { 200: endedAll } } },
    async (request) => {
      const o = organizationOf(request);
      const ended = await inTransaction(ctx.pool, async (db) => {
        await lockOrganization(db, o.id);
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
    },
  );

  r.get(
    "/orgs/:org_id/agents/:agent_id/observe",
    { schema: { params: agentParams, querystring: noQuery, response: { 200: agentWindows } } },
    async (request) => {
      const o = organizationOf(request);
      const agent = await readAgent(ctx.pool, o.id, request.params.agent_id);
      await closeExpiredWindows(ctx.pool, o.id, new Date());
      const rows = await latestWindowsOf(ctx.pool, agent.id);
      const open = rows.find((w) => !w.ended_at);
      return { open: open ? windowJson(open) : null, items: rows.map(windowJson) };
    },
  );

  r.get(
    "/orgs/:org_id/observe-windows",
    { schema: { params: orgParams, querystring: listQuery, response: { 200: windowPage } } },
    async (request) => {
      const o = organizationOf(request);
      const { limit, cursor, state, agent_id } = request.query;
      await closeExpiredWindows(ctx.pool, o.id, new Date());
      const after = decodeCursor(cursor, timeCursor);
      const rows = await listWindows(ctx.pool, o.id, { state, agentId: agent_id, after, limit: limit + 1 });
      return keysetPage(rows, limit, windowJson, (last) => [last.started_at.toISOString(), last.id]);
    },
  );

  r.get(
    "/orgs/:org_id/observe-windows/:window_id",
    { schema: { params: windowParams, querystring: noQuery, response: { 200: windowAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      await closeExpiredWindows(ctx.pool, o.id, new Date());
      return { observe_window: windowJson(await readWindow(ctx.pool, o.id, request.params.window_id)) };
    },
  );

  r.get(
    "/orgs/:org_id/observe-windows/:window_id/report",
    { schema: { params: windowParams, querystring: noQuery, response: { 200: reportAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      await closeExpiredWindows(ctx.pool, o.id, new Date());
      const w = await readWindow(ctx.pool, o.id, request.params.window_id);
      await enforceAnalysisLimit(ctx.pool, request, o.id);
      const { counts: c, calls } = await windowReport(ctx.pool, w.id);
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
