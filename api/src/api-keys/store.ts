import type { Queryable } from "@countersign/core/store";

export interface KeyRow {
  id: string;
  name: string;
  kind: "gateway" | "management";
  environment: "live" | "test";
  prefix: string;
  agent_id: string | null;
  scopes: string[];
  created_by: string | null;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  revoked_reason: string | null;
  last_used_at: Date | null;
  expired: boolean;
}

const COLUMNS = `id, name, kind, environment, prefix, agent_id, scopes, created_by, created_at, expires_at, revoked_at,
  revoked_reason, last_used_at, (expires_at is not null and expires_at <= now()) as expired`;

/** Narrows a key list: keys created for one Kubernetes resource, keys not revoked. */
export interface KeyFilter {
  createdFor?: string;
  unrevoked?: boolean;
}

/** One page (limit + 1 rows) of the organization's keys of the given kinds, newest first. */
export async function listKeys(
  db: Queryable,
  orgId: string,
  kinds: string[],
  after: [string, string] | undefined,
  limit: number,
  filter: KeyFilter = {},
): Promise<KeyRow[]> {
  const { rows } = await db.query<KeyRow>(
    `select ${COLUMNS} from api_keys where organization_id = $1 and kind = any($2)
       and ($3::timestamptz is null or (created_at, id) < ($3::timestamptz, $4::uuid))
       and ($6::text is null or created_for = $6) and (not $7 or revoked_at is null)
     order by created_at desc, id desc limit $5`,
    [
      orgId,
      kinds,
      after?.[0] ?? null,
      after?.[1] ?? null,
      limit + 1,
      filter.createdFor ?? null,
      !!filter.unrevoked,
    ],
  );
  return rows;
}

/** The organization's key of that id; undefined when it has none. */
export async function findKey(db: Queryable, orgId: string, id: string): Promise<KeyRow | undefined> {
  const { rows } = await db.query<KeyRow>(
    `select ${COLUMNS} from api_keys where id = $1 and organization_id = $2`,
    [id, orgId],
  );
  return rows[0];
}

/** Records, in the creating transaction, the Kubernetes resource the key was created for. */
export async function setKeyCreatedFor(db: Queryable, id: string, createdFor: string): Promise<void> {
  await db.query("update api_keys set created_for = $2 where id = $1", [id, createdFor]);
}

export async function readKey(db: Queryable, id: string): Promise<KeyRow> {
  const { rows } = await db.query<KeyRow>(`select ${COLUMNS} from api_keys where id = $1`, [id]);
  return rows[0]!;
}

export async function lockKey(db: Queryable, orgId: string, id: string): Promise<KeyRow | undefined> {
  const { rows } = await db.query<KeyRow>(
    `select ${COLUMNS} from api_keys where id = $1 and organization_id = $2 for update`,
    [id, orgId],
  );
  return rows[0];
}

export async function revokeKey(db: Queryable, id: string): Promise<KeyRow> {
  const { rows } = await db.query<KeyRow>(
    `update api_keys set revoked_at = now(), revoked_reason = 'revoked' where id = $1 returning ${COLUMNS}`,
    [id],
  );
  return rows[0]!;
}

/** Keys the plan limit counts: every key not revoked (expired ones count until revoked). */
export async function liveKeyCount(db: Queryable, orgId: string): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    "select count(*) as n from api_keys where organization_id = $1 and revoked_at is null",
    [orgId],
  );
  return Number(rows[0]!.n);
}

export async function agentExists(db: Queryable, orgId: string, agentId: string): Promise<boolean> {
  const { rowCount } = await db.query("select 1 from agents where id = $1 and organization_id = $2", [
    agentId,
    orgId,
  ]);
  return !!rowCount;
}
