import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { decisionMap, diffPolicies, runExamples, validateExamples } from "@countersign/protocol/policy";
import { inTransaction } from "@countersign/core/store";
import { actorOf, audit } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import { enforceAnalysisLimit } from "../../policies/analysis-limit.js";
import { rolloutOf } from "../../policies/options.js";
import { mapTools, runSimulation, type SimulationRequest } from "../../policies/simulation.js";
import { compiledVersion, loadPolicy, loadVersion, namedVersion } from "../../policies/store.js";
import { decodeCursor, timeCursor, keysetPage, organizationOf, pageQuery, typed } from "../../http/shared.js";
import { policyParams, reportQuery, simulationBody, versionParams } from "./schemas.js";

/** SPEC 8.3, 8.4: saved simulations are kept 400 days; 100 per policy per 24 hours. */
export const savedSimulationBounds = { keepDays: 400, perDay: 100 } as const;

interface SimulationRow {
  id: string;
  policy_id: string;
  candidate_version_id: string;
  baseline: unknown;
  parameters: unknown;
  report: unknown;
  created_by_type: string;
  created_by_id: string | null;
  created_at: Date;
  expires_at: Date;
}

const simulationJson = (s: SimulationRow, withReport: boolean) => ({
  id: s.id,
  policy_id: s.policy_id,
  candidate_version_id: s.candidate_version_id,
  baseline: s.baseline,
  parameters: s.parameters,
  created_by: { type: s.created_by_type, id: s.created_by_id },
  created_at: s.created_at.toISOString(),
  expires_at: s.expires_at.toISOString(),
  ...(withReport ? { report: s.report } : {}),
});

/**
 * Examples and the analyses (SPEC 2.4, 4.5, 8.1, 8.3): saved examples,
 * simulation and saved simulations, the shadow report, decision maps and
 * diffs. Every analysis counts against the organization's analysis limit
 * before any work is done.
 */
export async function analysisRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  const rollout = rolloutOf(ctx.rollout);

  r.put(
    "/orgs/:org_id/policies/:policy_id/examples",
    { schema: { params: policyParams, body: z.unknown() } },
    async (request) => {
      const o = organizationOf(request);
      // A bare list, or {examples: [...]}: validated by the engine so every issue is reported at once.
      const raw = request.body;
      const list =
        raw &&
        typeof raw === "object" &&
        !Array.isArray(raw) &&
        Object.keys(raw).length === 1 &&
        "examples" in raw
          ? (raw as { examples: unknown }).examples
          : raw;
      const v = validateExamples(list);
      if (!v.ok)
        throw new ServiceError(
          "EXAMPLES_INVALID",
          "the examples are invalid (at most 200, unique ids, an amount with its currency)",
          { issues: v.issues },
        );
      return inTransaction(ctx.pool, async (db) => {
        const p = await loadPolicy(db, o.id, request.params.policy_id, true);
        await db.query("update policies set examples = $2, examples_updated_at = now() where id = $1", [
          p.id,
          JSON.stringify(v.examples),
        ]);
        await audit(db, {
          organizationId: o.id,
          action: "policy.examples_updated",
          actor: actorOf(request.principal),
          target: { type: "policy", id: p.id },
          details: { count: v.examples.length },
        });
        const active = p.active_version_id ? await loadVersion(db, p.id, p.active_version_id) : null;
        return {
          examples: v.examples,
          active_version_report: active ? runExamples(compiledVersion(active), v.examples) : null,
        };
      });
    },
  );

  r.post(
    "/orgs/:org_id/policies/:policy_id/simulate",
    { schema: { params: policyParams, body: simulationBody } },
    async (request) => {
      const o = organizationOf(request);
      const p = await loadPolicy(ctx.pool, o.id, request.params.policy_id);
      await enforceAnalysisLimit(ctx.pool, request, o.id);
      const out = await runSimulation(ctx.pool, p, request.body as SimulationRequest, rollout.now());
      return { simulation: out };
    },
  );

  r.post(
    "/orgs/:org_id/policies/:policy_id/simulations",
    { schema: { params: policyParams, body: simulationBody } },
    async (request, reply) => {
      const o = organizationOf(request);
      const b = request.body as SimulationRequest;
      if (!("version_id" in b.candidate)) {
        throw new ServiceError(
          "VALIDATION_FAILED",
          "a saved simulation's candidate must be a saved version",
          { issues: [{ path: "candidate", code: "version_required", message: "give candidate.version_id" }] },
        );
      }
      const candidateId = b.candidate.version_id;
      const p = await loadPolicy(ctx.pool, o.id, request.params.policy_id);
      await enforceAnalysisLimit(ctx.pool, request, o.id);
      const now = rollout.now();
      const saved = await inTransaction(ctx.pool, async (db) => {
        const locked = await loadPolicy(db, o.id, p.id, true);
        const { rows: n } = await db.query<{ n: string }>(
          "select count(*) as n from policy_simulations where policy_id = $1 and created_at > $2::timestamptz - interval '24 hours'",
          [p.id, now],
        );
        if (Number(n[0]!.n) >= savedSimulationBounds.perDay)
          throw new ServiceError(
            "SIMULATION_LIMIT",
            "at most 100 simulations are saved per policy per 24 hours",
          );
        const out = await runSimulation(db, locked, b, now);
        const { rows } = await db.query<SimulationRow>(
          `insert into policy_simulations (organization_id, policy_id, candidate_version_id, baseline, parameters, report, created_by_type, created_by_id, created_at, expires_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9::timestamptz + make_interval(days => $10)) returning *`,
          [
            o.id,
            p.id,
            candidateId,
            JSON.stringify(out.baseline),
            JSON.stringify({ window_days: b.window_days, scope: b.scope, environment: b.environment }),
            JSON.stringify({ ...out.report, calls: out.calls, examples: out.examples ?? null }),
            actorOf(request.principal).type,
            actorOf(request.principal).id,
            now,
            savedSimulationBounds.keepDays,
          ],
        );
        const s = rows[0]!;
        await audit(db, {
          organizationId: o.id,
          action: "policy.simulation_saved",
          actor: actorOf(request.principal),
          target: { type: "policy", id: p.id },
          details: {
            simulation_id: s.id,
            candidate_version_id: candidateId,
            baseline: out.baseline,
            counts: out.report.counts,
          },
        });
        return s;
      });
      return reply.code(201).send({ simulation: simulationJson(saved, true) });
    },
  );

  r.get(
    "/orgs/:org_id/policies/:policy_id/simulations",
    { schema: { params: policyParams, querystring: z.strictObject(pageQuery) } },
    async (request) => {
      const o = organizationOf(request);
      const p = await loadPolicy(ctx.pool, o.id, request.params.policy_id);
      const { limit, cursor } = request.query;
      const after = decodeCursor(cursor, timeCursor);
      const { rows } = await ctx.pool.query<SimulationRow>(
        `select * from policy_simulations where policy_id = $1 and expires_at > $2
         and ($3::timestamptz is null or (created_at, id) < ($3::timestamptz, $4::uuid))
       order by created_at desc, id desc limit $5`,
        [p.id, rollout.now(), after?.[0] ?? null, after?.[1] ?? null, limit + 1],
      );
      return keysetPage(
        rows,
        limit,
        (s) => simulationJson(s, false),
        (last) => [last.created_at.toISOString(), last.id],
      );
    },
  );

  r.get(
    "/orgs/:org_id/policies/:policy_id/simulations/:simulation_id",
    {
      schema: { params: z.strictObject({ org_id: z.uuid(), policy_id: z.uuid(), simulation_id: z.uuid() }) },
    },
    async (request) => {
      const o = organizationOf(request);
      const p = await loadPolicy(ctx.pool, o.id, request.params.policy_id);
      const { rows } = await ctx.pool.query<SimulationRow>(
        "select * from policy_simulations where id = $1 and policy_id = $2 and expires_at > $3",
        [request.params.simulation_id, p.id, rollout.now()],
      );
      if (!rows[0]) throw new ServiceError("NOT_FOUND", "simulation not found");
      return { simulation: simulationJson(rows[0], true) };
    },
  );

  r.get(
    "/orgs/:org_id/policies/:policy_id/shadow/report",
    { schema: { params: policyParams, querystring: reportQuery } },
    async (request) => {
      const o = organizationOf(request);
      const p = await loadPolicy(ctx.pool, o.id, request.params.policy_id);
      if (!p.shadow_version_id) throw new ServiceError("NO_SHADOW", "the policy has no shadow version");
      await enforceAnalysisLimit(ctx.pool, request, o.id);
      const q = request.query;
      // The shadow is evaluated only here: what it would have decided on the recorded calls, against what was recorded.
      const out = await runSimulation(
        ctx.pool,
        p,
        {
          candidate: { version_id: p.shadow_version_id },
          baseline: { kind: "recorded" },
          window_days: q.window_days,
          scope: q.scope,
          environment: q.environment,
        },
        rollout.now(),
      );
      return {
        shadow_version_id: p.shadow_version_id,
        active_version_id: p.active_version_id,
        window_days: q.window_days,
        report: out.report,
      };
    },
  );

  r.get(
    "/orgs/:org_id/policies/:policy_id/versions/:version_id/decision-map",
    { schema: { params: versionParams } },
    async (request) => {
      const o = organizationOf(request);
      const p = await loadPolicy(ctx.pool, o.id, request.params.policy_id);
      const v = await loadVersion(ctx.pool, p.id, request.params.version_id);
      await enforceAnalysisLimit(ctx.pool, request, o.id);
      return {
        version_id: v.id,
        decision_map: decisionMap(compiledVersion(v), await mapTools(ctx.pool, o.id)),
      };
    },
  );

  r.get(
    "/orgs/:org_id/policies/:policy_id/diff",
    {
      schema: {
        params: policyParams,
        querystring: z.strictObject({ from: z.uuid().optional(), to: z.uuid() }),
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const p = await loadPolicy(ctx.pool, o.id, request.params.policy_id);
      const fromId = request.query.from ?? p.active_version_id;
      if (!fromId)
        throw new ServiceError("NO_ACTIVE_POLICY", "the policy has no active version; give `from`");
      const from = await namedVersion(ctx.pool, p.id, fromId, "from");
      const to = await namedVersion(ctx.pool, p.id, request.query.to, "to");
      await enforceAnalysisLimit(ctx.pool, request, o.id);
      return {
        from_version_id: from.id,
        to_version_id: to.id,
        diff: diffPolicies(from.document, to.document),
      };
    },
  );
}
