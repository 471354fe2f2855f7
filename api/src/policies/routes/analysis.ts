import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { decisionMap, diffPolicies, validateExamples } from "@countersign/protocol/policy";
import { actorOf } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import { enforceAnalysisLimit } from "../analysis-limit.js";
import { rolloutOf } from "../options.js";
import type { SimulationRequest } from "@countersign/protocol/wire";
import { runSimulation } from "../simulation.js";
import { saveSimulation } from "../save-simulation.js";
import { saveExamples } from "../set-examples.js";
import { compiledVersion, loadPolicy, loadVersion, mapTools, namedVersion } from "../store.js";
import { listSimulations, readSimulation, type SimulationRow } from "../simulation-store.js";
import { decodeCursor, timeCursor, keysetPage, organizationOf, pageQuery, typed } from "../../http/shared.js";
import {
  decisionMapAnswer,
  diffAnswer,
  examplesAnswer,
  policyParams,
  reportQuery,
  savedSimulationAnswer,
  savedSimulationPage,
  shadowReportAnswer,
  simulationAnswer,
  simulationBody,
  versionParams,
} from "../schemas.js";

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
    { schema: { params: policyParams, body: z.unknown(), response: { 200: examplesAnswer } } },
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
      return saveExamples(ctx.pool, {
        organizationId: o.id,
        policyId: request.params.policy_id,
        examples: v.examples,
        actor: actorOf(request.principal),
      });
    },
  );

  r.post(
    "/orgs/:org_id/policies/:policy_id/simulate",
    { schema: { params: policyParams, body: simulationBody, response: { 200: simulationAnswer } } },
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
    { schema: { params: policyParams, body: simulationBody, response: { 201: savedSimulationAnswer } } },
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
      const saved = await saveSimulation(ctx.pool, {
        organizationId: o.id,
        policyId: p.id,
        candidateVersionId: candidateId,
        body: b,
        actor: actorOf(request.principal),
        now: rollout.now(),
      });
      return reply.code(201).send({ simulation: simulationJson(saved, true) });
    },
  );

  r.get(
    "/orgs/:org_id/policies/:policy_id/simulations",
    {
      schema: {
        params: policyParams,
        querystring: z.strictObject(pageQuery),
        response: { 200: savedSimulationPage },
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const p = await loadPolicy(ctx.pool, o.id, request.params.policy_id);
      const { limit, cursor } = request.query;
      const after = decodeCursor(cursor, timeCursor);
      const rows = await listSimulations(ctx.pool, p.id, rollout.now(), { after, limit: limit + 1 });
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
      schema: {
        params: z.strictObject({ org_id: z.uuid(), policy_id: z.uuid(), simulation_id: z.uuid() }),
        response: { 200: savedSimulationAnswer },
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const p = await loadPolicy(ctx.pool, o.id, request.params.policy_id);
      const s = await readSimulation(ctx.pool, p.id, request.params.simulation_id, rollout.now());
      if (!s) throw new ServiceError("NOT_FOUND", "simulation not found");
      return { simulation: simulationJson(s, true) };
    },
  );

  r.get(
    "/orgs/:org_id/policies/:policy_id/shadow/report",
    { schema: { params: policyParams, querystring: reportQuery, response: { 200: shadowReportAnswer } } },
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
    { schema: { params: versionParams, response: { 200: decisionMapAnswer } } },
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
        response: { 200: diffAnswer },
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
