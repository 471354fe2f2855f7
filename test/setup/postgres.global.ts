/**
 * One real PostgreSQL server for the whole test run. Each test file that needs
 * a database creates its own with `createTestDatabase()` (test/setup/database.ts),
 * so files run in parallel without seeing each other's rows.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "../../core/src/store/embedded-postgres.js";

export default async function setup(project: TestProject) {
  if (process.env.TEST_DATABASE_URL) {
    project.provide("postgresUrl", process.env.TEST_DATABASE_URL);
    return;
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "countersign-pg-"));
  chmodSync(dir, 0o755); // the server may run as an unprivileged user (see embedded-postgres.ts)
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, "data"), ephemeral: true });
  project.provide("postgresUrl", pg.url);
  return async () => {
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}
