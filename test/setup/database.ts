/**
 * A fresh database per test file on the run's shared PostgreSQL server
 * (test/setup/postgres.global.ts), migrated unless asked otherwise.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { createPool, migrate, type Pool } from "../../core/src/store/index.js";

export interface TestDatabase {
  url: string;
  pool: Pool;
  drop(): Promise<void>;
}

export async function createTestDatabase(opts: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const serverUrl = inject("postgresUrl");
  const name = `t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const pool = createPool(url.toString(), { applicationName: "test", max: 10 });
  if (opts.migrate !== false) await migrate(pool);
  return {
    url: url.toString(),
    pool,
    async drop() {
      await pool.end();
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
