import type { ManagedBy } from "@countersign/protocol/wire";
import type { Queryable } from "@countersign/core/store";

/** The records the operator reconciles, by the table that stores each. */
export const managedTables = {
  agents: "agents",
  policies: "policies",
  tools: "tools",
  "mcp-servers": "mcp_servers",
  webhooks: "webhook_endpoints",
} as const;
export type ManagedTable = (typeof managedTables)[keyof typeof managedTables];

/** Stores the marker with the record (of this organization only). */
export async function markManaged(
  db: Queryable,
  table: ManagedTable,
  organizationId: string,
  id: string,
  marker: ManagedBy,
): Promise<void> {
  await db.query(`update ${table} set managed_by = $3 where organization_id = $1 and id = $2`, [
    organizationId,
    id,
    JSON.stringify(marker),
  ]);
}

/** The markers of these records, by id (records people manage are absent). */
export async function markersOf(
  db: Queryable,
  table: ManagedTable,
  organizationId: string,
  ids: string[],
): Promise<Map<string, ManagedBy>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; managed_by: ManagedBy }>(
    `select id, managed_by from ${table} where organization_id = $1 and id = any($2::uuid[]) and managed_by is not null`,
    [organizationId, ids],
  );
  return new Map(rows.map((r) => [r.id, r.managed_by]));
}
