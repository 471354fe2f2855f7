import type { Queryable } from "@countersign/core/store";
import { VERSION_COLUMNS, type VersionRow } from "./store.js";

type Stamped = Record<string, unknown> & { created_at: Date };

/** What a policy's evidence export reads for a period: versions by its end, activations, simulations, audit entries. */
export async function evidenceRows(
  db: Queryable,
  organizationId: string,
  policyId: string,
  from: Date,
  to: Date,
) {
  const { rows: versions } = await db.query<VersionRow>(
    `select ${VERSION_COLUMNS} from policy_versions where policy_id = $1 and created_at <= $2 order by number`,
    [policyId, to],
  );
  const { rows: activations } = await db.query<Stamped>(
    `select id, version_id, previous_version_id, trigger, restored_version_id, open_actions, note_given, acknowledged_failing_examples,
          failing_examples, impact, language_gate, simulation_id, actor_type, actor_id, actor_label, created_at
     from policy_activations where policy_id = $1 and created_at >= $2 and created_at <= $3 order by created_at`,
    [policyId, from, to],
  );
  const { rows: simulations } = await db.query<Stamped & { expires_at: Date }>(
    `select id, candidate_version_id, baseline, parameters, report->'counts' as counts, created_by_type, created_by_id, created_at, expires_at
     from policy_simulations where policy_id = $1 and created_at >= $2 and created_at <= $3 order by created_at`,
    [policyId, from, to],
  );
  const { rows: audit } = await db.query<Stamped & { id: string }>(
    `select id::text as id, action, actor_type, actor_id, actor_label, details, created_at from audit_log
     where organization_id = $1 and target_type = 'policy' and target_id = $2 and created_at >= $3 and created_at <= $4 order by id`,
    [organizationId, policyId, from, to],
  );
  return { versions, activations, simulations, audit };
}
