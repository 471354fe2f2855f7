import type { Queryable } from "@countersign/core/store";
import type { SavedSimulation, SavedSimulationReport, StoredBaseline } from "@countersign/protocol/wire";

/** SPEC 8.3, 8.4: saved simulations are kept 400 days; 100 per policy per 24 hours. */
export const savedSimulationBounds = { keepDays: 400, perDay: 100 } as const;

/** A saved simulation (policy_simulations). */
export interface SimulationRow {
  id: string;
  policy_id: string;
  candidate_version_id: string;
  baseline: StoredBaseline;
  parameters: SavedSimulation["parameters"];
  report: SavedSimulationReport;
  created_by_type: string;
  created_by_id: string | null;
  created_at: Date;
  expires_at: Date;
}

/** Simulations of the policy saved in the 24 hours before `now`. */
export async function simulationsSavedSince(db: Queryable, policyId: string, now: Date): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    "select count(*) as n from policy_simulations where policy_id = $1 and created_at > $2::timestamptz - interval '24 hours'",
    [policyId, now],
  );
  return Number(rows[0]!.n);
}

export async function insertSimulation(
  db: Queryable,
  s: {
    organizationId: string;
    policyId: string;
    candidateVersionId: string;
    baseline: StoredBaseline;
    parameters: SavedSimulation["parameters"];
    report: SavedSimulationReport;
    createdBy: { type: string; id: string | null };
    now: Date;
  },
): Promise<SimulationRow> {
  const { rows } = await db.query<SimulationRow>(
    `insert into policy_simulations (organization_id, policy_id, candidate_version_id, baseline, parameters, report, created_by_type, created_by_id, created_at, expires_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9::timestamptz + make_interval(days => $10)) returning *`,
    [
      s.organizationId,
      s.policyId,
      s.candidateVersionId,
      JSON.stringify(s.baseline),
      JSON.stringify(s.parameters),
      JSON.stringify(s.report),
      s.createdBy.type,
      s.createdBy.id,
      s.now,
      savedSimulationBounds.keepDays,
    ],
  );
  return rows[0]!;
}

/** A page of the policy's unexpired simulations, newest first, after the `[created_at, id]` cursor. */
export async function listSimulations(
  db: Queryable,
  policyId: string,
  now: Date,
  q: { after?: [string, string]; limit: number },
): Promise<SimulationRow[]> {
  const { rows } = await db.query<SimulationRow>(
    `select * from policy_simulations where policy_id = $1 and expires_at > $2
       and ($3::timestamptz is null or (created_at, id) < ($3::timestamptz, $4::uuid))
     order by created_at desc, id desc limit $5`,
    [policyId, now, q.after?.[0] ?? null, q.after?.[1] ?? null, q.limit],
  );
  return rows;
}

export async function readSimulation(
  db: Queryable,
  policyId: string,
  id: string,
  now: Date,
): Promise<SimulationRow | undefined> {
  const { rows } = await db.query<SimulationRow>(
    "select * from policy_simulations where id = $1 and policy_id = $2 and expires_at > $3",
    [id, policyId, now],
  );
  return rows[0];
}
