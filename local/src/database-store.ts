import type { Queryable } from "@countersign/core/store";

/** Creates the database `name` on the server unless it is there (`name` is ours, a constant, never input). */
export async function ensureDatabase(admin: Queryable, name: string): Promise<void> {
  const { rowCount } = await admin.query("select 1 from pg_database where datname = $1", [name]);
  if (!rowCount) await admin.query(`create database ${name}`);
}
