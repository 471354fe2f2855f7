import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { actorOf } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import { activateVersion } from "../activate.js";
import { unapprovableRules } from "../approver-coverage.js";
import { activationImpact, compileOrError } from "../impact.js";
import { emergencyStop } from "../emergency.js";
import { rolloutOf } from "../options.js";
import { rollBack } from "../rollback.js";
import { observingPolicies } from "../../observe/store.js";
import { rolloutStage } from "../stage.js";
import {
  allPolicies,
  loadPolicy,
  loadVersion,
  newestDrafts,
  versionJson,
  versionsById,
  type PolicyRow,
  type VersionRow,
} from "../store.js";
import { clearShadow } from "../clear-shadow.js";
import { setShadow } from "../set-shadow.js";
import { supersedeOpenActions } from "../supersede-open-actions.js";
import { organizationOf, orgParams, typed } from "../../http/shared.js";
import {
  activateBody,
  activationAnswer,
  emergencyAnswer,
  optionalBody,
  policyAnswer,
  policyParams,
  policyStatusAnswer,
  rollbackAnswer,
  rollbackBody,
  shadowBody,
  shadowSetAnswer,
  supersededAnswer,
  versionImpactAnswer,
  versionParams,
} from "../schemas.js";

/**
 * Rollout (SPEC 3.3-3.6): activation through the gates, rollback, emergency
 * stop, closing covered open actions, the shadow version, and the derived
 * rollout stage of every policy. Each change is an operation of its own
 * (activate.ts, rollback.ts, emergency.ts, supersede-open-actions.ts,
 * set-shadow.ts, clear-shadow.ts); the handlers parse, call and answer.
 */
export async function rolloutRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  const rollout = rolloutOf(ctx.rollout);

  r.post(
    "/orgs/:org_id/policies/:policy_id/versions/:version_id/activate",
    { schema: { params: versionParams, body: activateBody, response: { 200: activationAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      const a = await activateVersion(ctx.pool, rollout, {
        organizationId: o.id,
        policyId: request.params.policy_id,
        versionId: request.params.version_id,
        body: request.body,
        actor: actorOf(request.principal),
      });
      return {
        version: versionJson(a.version),
        previous_version_id: a.previousVersionId,
        shadow_cleared: a.shadowCleared,
        examples: a.examples,
        impact: a.impact,
        language_gate: a.languageGate,
      };
    },
  );

  // Not in SPEC 4.4 (docs/access.md): the impact preview the activation checks, to review first.
  r.get(
    "/orgs/:org_id/policies/:policy_id/versions/:version_id/impact",
    { schema: { params: versionParams, response: { 200: versionImpactAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      const policy = await loadPolicy(ctx.pool, o.id, request.params.policy_id);
      const version = await loadVersion(ctx.pool, policy.id, request.params.version_id);
      return {
        version_id: version.id,
        active_version_id: policy.active_version_id,
        impact: await activationImpact(ctx.pool, rollout, { organizationId: o.id, policy, version }),
      };
    },
  );

  r.post(
    "/orgs/:org_id/policies/:policy_id/rollback",
    { schema: { params: policyParams, body: rollbackBody, response: { 200: rollbackAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      const rb = await rollBack(ctx.pool, rollout, {
        organizationId: o.id,
        policyId: request.params.policy_id,
        body: request.body,
        actor: actorOf(request.principal),
      });
      return {
        version: versionJson(rb.version),
        restored_version: versionJson(rb.restored),
        previous_version_id: rb.previousVersionId,
        open_actions: request.body.open_actions,
        closed_actions: rb.closed,
        shadow_cleared: rb.shadowCleared,
        warnings: rb.warnings,
      };
    },
  );

  r.post(
    "/orgs/:org_id/policies/:policy_id/emergency",
    {
      schema: {
        params: policyParams,
        body: optionalBody(z.strictObject({})),
        response: { 200: emergencyAnswer },
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const s = await emergencyStop(ctx.pool, rollout, {
        organizationId: o.id,
        policyId: request.params.policy_id,
        actor: actorOf(request.principal),
        userId: request.principal.kind === "session" ? request.principal.userId : null,
      });
      return {
        emergency_stopped_at: s.emergencyStoppedAt.toISOString(),
        closed_actions: s.closed,
        ended_observe_windows: s.endedObserveWindows,
      };
    },
  );

  r.post(
    "/orgs/:org_id/policies/:policy_id/supersede-open-actions",
    {
      schema: {
        params: policyParams,
        body: optionalBody(
          z.strictObject({ scope: z.enum(["supersede_pending", "supersede_all"]).default("supersede_all") }),
        ),
        response: { 200: supersededAnswer },
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const scope = request.body.scope;
      const closed = await supersedeOpenActions(ctx.pool, {
        organizationId: o.id,
        policyId: request.params.policy_id,
        scope,
        actor: actorOf(request.principal),
      });
      return { closed_actions: closed, scope };
    },
  );

  r.put(
    "/orgs/:org_id/policies/:policy_id/shadow",
    {
      schema: {
        params: policyParams,
        body: shadowBody,
        response: { 200: shadowSetAnswer },
      },
    },
    async (request) => {
      const o = organizationOf(request);
      return setShadow(ctx.pool, {
        organizationId: o.id,
        policyId: request.params.policy_id,
        body: request.body,
        actor: actorOf(request.principal),
      });
    },
  );

  r.delete(
    "/orgs/:org_id/policies/:policy_id/shadow",
    { schema: { params: policyParams, response: { 200: policyAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      const policy = await clearShadow(ctx.pool, {
        organizationId: o.id,
        policyId: request.params.policy_id,
        actor: actorOf(request.principal),
      });
      return { policy };
    },
  );

  r.get(
    "/orgs/:org_id/policy-status",
    { schema: { params: orgParams, response: { 200: policyStatusAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      const rows = await allPolicies(ctx.pool, o.id);
      const versions = await versionsById(
        ctx.pool,
        rows.flatMap((p) => [p.active_version_id, p.shadow_version_id]),
      );
      const drafts = await newestDrafts(ctx.pool, o.id);
      const observing = await observingPolicies(ctx.pool, o.id, rollout.now());
      const brief = (v: VersionRow | undefined) =>
        v ? { id: v.id, number: v.number, digest: v.digest } : null;
      const byId = (id: string | null) => (id ? versions.get(id) : undefined);
      // The version that decides calls now, or the draft that would once activated.
      const unapprovable = async (p: PolicyRow) => {
        const deciding = byId(p.active_version_id) ?? drafts.get(p.id);
        const compiled = deciding ? compileOrError(deciding) : null;
        return deciding && compiled && !(compiled instanceof ServiceError)
          ? unapprovableRules(ctx.pool, o.id, deciding.id, compiled)
          : [];
      };
      // A fixed list: every policy of the organization (SPEC 4.3 "a few fixed lists return all items").
      const items = [];
      for (const p of rows)
        items.push({
          policy_id: p.id,
          name: p.name,
          stage: rolloutStage({
            active: byId(p.active_version_id) ?? null,
            shadow: byId(p.shadow_version_id) ?? null,
            observing: observing.has(p.id),
          }),
          active_version: brief(byId(p.active_version_id)),
          shadow_version: brief(byId(p.shadow_version_id)),
          draft_version: brief(drafts.get(p.id)),
          unapprovable: await unapprovable(p),
          emergency_stopped: p.emergency_stopped_at !== null,
        });
      return { items };
    },
  );
}
