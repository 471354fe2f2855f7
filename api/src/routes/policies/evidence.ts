import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { digestOf } from "@countersign/protocol/canonical";
import type { ApiContext } from "../../context.js";
import { rolloutOf } from "../../policies/options.js";
import {
  loadPolicy,
  policyJson,
  versionJson,
  VERSION_COLUMNS,
  type VersionRow,
} from "../../policies/store.js";
import { organizationOf, typed, instantSchema } from "../../http/shared.js";
import { policyParams } from "./schemas.js";

export const EVIDENCE_FORMAT = "countersign.policy-evidence@1";
const MAX_DAYS = 400;
const DAY = 86_400_000;

/**
 * GET .../policies/<id>/evidence (Admins; SPEC 8.4: up to 400 days): what a
 * reviewer needs to show how the policy changed over a period, as one JSON
 * document (format in docs/policy-rollout.md): every version that existed by
 * the end of the period with its document and digest, the activations and
 * rollbacks with what their gates found, the saved simulations, the audit
 * entries about the policy, and the sha256 digest of the canonical JSON of
 * all that, so a copy can be checked for changes.
 */
export async function evidenceRoute(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  const rollout = rolloutOf(ctx.rollout);
  const when = instantSchema;

  r.get(
    "/orgs/:org_id/policies/:policy_id/evidence",
    {
      schema: {
        params: policyParams,
        querystring: z.strictObject({ from: when.optional(), to: when.optional() }),
      },
    },
    async (request, reply) => {
      const o = organizationOf(request);
      const now = rollout.now();
      const to = request.query.to ? new Date(request.query.to) : now;
      const from = request.query.from
        ? new Date(request.query.from)
        : new Date(to.getTime() - MAX_DAYS * DAY);
      if (from.getTime() >= to.getTime() || to.getTime() - from.getTime() > MAX_DAYS * DAY) {
        throw new ServiceError(
          "VALIDATION_FAILED",
          "the period is at most 400 days and `from` comes before `to`",
          {
            issues: [
              { path: "from", code: "period_out_of_range", message: "at most 400 days, from before to" },
            ],
          },
        );
      }
      const p = await loadPolicy(ctx.pool, o.id, request.params.policy_id);
      const q = async <T>(sql: string, args: unknown[]) => (await ctx.pool.query(sql, args)).rows as T[];
      const versions = await q<VersionRow>(
        `select ${VERSION_COLUMNS} from policy_versions where policy_id = $1 and created_at <= $2 order by number`,
        [p.id, to],
      );
      const activations = await q<Record<string, unknown> & { created_at: Date }>(
        `select id, version_id, previous_version_id, trigger, restored_version_id, open_actions, note_given, acknowledged_failing_examples,
              failing_examples, impact, language_gate, simulation_id, actor_type, actor_id, actor_label, created_at
         from policy_activations where policy_id = $1 and created_at >= $2 and created_at <= $3 order by created_at`,
        [p.id, from, to],
      );
      const simulations = await q<Record<string, unknown> & { created_at: Date; expires_at: Date }>(
        `select id, candidate_version_id, baseline, parameters, report->'counts' as counts, created_by_type, created_by_id, created_at, expires_at
         from policy_simulations where policy_id = $1 and created_at >= $2 and created_at <= $3 order by created_at`,
        [p.id, from, to],
      );
      const auditEntries = await q<Record<string, unknown> & { created_at: Date; id: string }>(
        `select id::text as id, action, actor_type, actor_id, actor_label, details, created_at from audit_log
        where organization_id = $1 and target_type = 'policy' and target_id = $2 and created_at >= $3 and created_at <= $4 order by id`,
        [o.id, p.id, from, to],
      );
      const stamp = <T extends { created_at: Date; expires_at?: Date }>(row: T) => ({
        ...row,
        created_at: row.created_at.toISOString(),
        ...(row.expires_at ? { expires_at: row.expires_at.toISOString() } : {}),
      });
      const body = {
        format: EVIDENCE_FORMAT,
        organization_id: o.id,
        policy: policyJson(p),
        period: { from: from.toISOString(), to: to.toISOString() },
        exported_at: now.toISOString(),
        versions: versions.map((v) => versionJson(v, true)),
        activations: activations.map(stamp),
        simulations: simulations.map(stamp),
        audit: auditEntries.map(stamp),
      };
      const digest = digestOf(body);
      reply.header("content-disposition", `attachment; filename="policy-${p.id}-evidence.json"`);
      return { ...body, digest };
    },
  );
}
