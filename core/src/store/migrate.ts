/**
 * Versioned SQL migrations from core/migrations (NNNN_name.sql), applied in
 * order under a PostgreSQL advisory lock so that any number of processes may
 * start at once: the first applies, the others wait and then find nothing to do.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";
import type pg from "pg";

/** Arbitrary constant naming the migration lock in pg_locks. */
const MIGRATION_LOCK = 0x636f756e74657273n; // "countersign" prefix as bytes

export const defaultMigrationsDir = fileURLToPath(new URL("../../migrations", import.meta.url));

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export function loadMigrations(dir = defaultMigrationsDir): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((file) => {
      const sql = readFileSync(path.join(dir, file), "utf8");
      return {
        version: Number(file.slice(0, 4)),
        name: file.slice(5, -4),
        sql,
        checksum: createHash("sha256").update(sql).digest("hex"),
      };
    });
}

export interface MigrateResult {
  applied: number[];
}

export async function migrate(pool: pg.Pool, dir = defaultMigrationsDir): Promise<MigrateResult> {
  const migrations = loadMigrations(dir);
  const client = await pool.connect();
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK.toString()]);
    await client.query(`create table if not exists schema_migrations (
      version integer primary key,
      name text not null,
      checksum text not null,
      applied_at timestamptz not null default now())`);
    const { rows } = await client.query<{ version: number; checksum: string }>(
      "select version, checksum from schema_migrations",
    );
    const done = new Map(rows.map((r) => [r.version, r.checksum]));
    const applied: number[] = [];
    for (const m of migrations) {
      const seen = done.get(m.version);
      if (seen !== undefined) {
        if (seen !== m.checksum) {
          throw new Error(
            `migration ${m.version}_${m.name} was changed after it was applied; add a new migration instead`,
          );
        }
        continue;
      }
      await client.query("begin");
      try {
        await client.query(m.sql);
        await client.query("insert into schema_migrations (version, name, checksum) values ($1, $2, $3)", [
          m.version,
          m.name,
          m.checksum,
        ]);
        await client.query("commit");
      } catch (err) {
        await client.query("rollback");
        throw new Error(`migration ${m.version}_${m.name} failed: ${(err as Error).message}`, { cause: err });
      }
      applied.push(m.version);
    }
    return { applied };
  } finally {
    await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK.toString()]).catch(() => undefined);
    client.release();
  }
}
