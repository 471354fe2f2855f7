import type { FastifyInstance, FastifyRequest } from "fastify";
import { actorOf } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { endAllWindows } from "./end-all.js";
import { endWindow } from "./end.js";
import { startWindow } from "./start.js";
import { closeExpiredWindows, windowJson } from "./windows.js";
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
import { latestWindowsOf, listWindows, readWindow, windowReport } from "./store.js";

const userOf = (request: FastifyRequest) =>
  request.principal.kind === "session" ? request.principal.userId : null;

/**
 * Observe windows (SPEC 3.9): for a few hours an agent's calls are decided
 * under `observe`: what the policy would refuse or hold for approval is
 * allowed and reported, while explicit deny rules, guards and delegations
 * stay enforced (the decision pipeline's part). One open window per agent;
 * never extended; ended by the end calls, by expiry, or by the owner's
 * settings changes (api/src/observe/windows.ts). Each change is its own
 * operation (start.ts, end.ts, end-all.ts); the handlers parse, call and answer.
 */
export async function observeRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);

  r.post(
    "/orgs/:org_id/agents/:agent_id/observe",
    { schema: { params: agentParams, body: startBody, response: { 201: windowAnswer } } },
    async (request, reply) => {
      const o = organizationOf(request);
      const started = await startWindow(ctx.pool, {
        organizationId: o.id,
        agentId: request.params.agent_id,
        body: request.body,
        actor: actorOf(request.principal),
        userId: userOf(request),
        now: new Date(),
      });
      return reply.code(201).send({ observe_window: windowJson(started) });
    },
  );

  r.post(
    "/orgs/:org_id/agents/:agent_id/observe/end",
    { schema: { params: agentParams, response: { 200: windowAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      const ended = await endWindow(ctx.pool, {
        organizationId: o.id,
        agentId: request.params.agent_id,
        actor: actorOf(request.principal),
        userId: userOf(request),
      });
      return { observe_window: windowJson(ended) };
    },
  );

  r.post(
    "/orgs/:org_id/observe/end-all",
    { schema: { params: orgParams, response: { 200: endedAll } } },
    async (request) => {
      const o = organizationOf(request);
      const ended = await endAllWindows(ctx.pool, {
        organizationId: o.id,
        actor: actorOf(request.principal),
        userId: userOf(request),
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
