import type { Queryable } from "@countersign/core/store";
import type { Role } from "@countersign/protocol/wire";
import { ORGANIZATION_COLUMNS, type OrganizationRow } from "./organization-json.js";

/**
 * Locks the organization row: creations that count against a plan limit
 * take it first, so two of them cannot both pass the count. The lock is FOR NO
 * KEY UPDATE, which conflicts with itself but not with the key-share lock
 * every insert of a row referencing the organization takes (an audit entry, a
 * tool): with FOR UPDATE, a creation holding the organization and waiting for
 * an MCP server's row deadlocked with a tool change holding that row and
 * writing its audit entry (issue 44).
 */
export async function lockOrganization(db: Queryable, orgId: string): Promise<void> {
  await db.query("select 1 from organizations where id = $1 for no key update", [orgId]);
}

export async function readOrganization(db: Queryable, orgId: string, lock = false): Promise<OrganizationRow> {
  const { rows } = await db.query<OrganizationRow>(
    `select ${ORGANIZATION_COLUMNS} from organizations where id = $1${lock ? " for update" : ""}`,
    [orgId],
  );
  return rows[0]!;
}

/** The organizations a person belongs to, with the person's role in each, oldest first. */
export async function organizationsOf(
  db: Queryable,
  userId: string,
): Promise<(OrganizationRow & { role: Role })[]> {
  const columns = ORGANIZATION_COLUMNS.split(", ")
    .map((c) => `o.${c}`)
    .join(", ");
  const { rows } = await db.query<OrganizationRow & { role: Role }>(
    `select ${columns}, m.role from memberships m join organizations o on o.id = m.organization_id
      where m.user_id = $1 order by o.created_at, o.id`,
    [userId],
  );
  return rows;
}

/** A unique violation when the slug is taken. */
export async function insertOrganization(
  db: Queryable,
  name: string,
  slug: string,
): Promise<OrganizationRow> {
  const { rows } = await db.query<OrganizationRow>(
    `insert into organizations (name, slug) values ($1, $2) returning ${ORGANIZATION_COLUMNS}`,
    [name, slug],
  );
  return rows[0]!;
}

/** Settings columns: the keys come from the settings schema, never from the caller's text. */
export type SettingsColumn =
  | "name"
  | "approval_ttl_seconds"
  | "observe_max_hours"
  | "observe_live_opt_in"
  | "agent_disclosure"
  | "data_retention_days";

export async function updateSettings(
  db: Queryable,
  orgId: string,
  changes: [SettingsColumn, unknown][],
): Promise<OrganizationRow> {
  const sets = changes.map(([k], i) => `${k} = $${i + 2}`).join(", ");
  const { rows } = await db.query<OrganizationRow>(
    `update organizations set ${sets} where id = $1 returning ${ORGANIZATION_COLUMNS}`,
    [orgId, ...changes.map(([, v]) => v)],
  );
  return rows[0]!;
}
