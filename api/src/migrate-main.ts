#!/usr/bin/env node
/**
 * Applies the schema migrations and exits (the Helm chart's pre-install/pre-upgrade Job).
 * Only DATABASE_URL is read, so the Job needs no other secret. The api still migrates on start
 * (advisory-locked, idempotent): this entry point only lets an upgrade fail before any new pod
 * starts, with the failing migration in the Job's log.
 */
import { loadConfigOrExit, commonSettings, logLevel, setting } from "@countersign/core/config";
import { createLogger } from "@countersign/core/server";
import { createPool, migrate } from "@countersign/core/store";

const config = loadConfigOrExit({
  databaseUrl: commonSettings.databaseUrl,
  logLevel: setting(
    "COUNTERSIGN_LOG_LEVEL",
    logLevel,
    "one of fatal, error, warn, info, debug, trace, silent",
  ),
});
const logger = createLogger("migrate", config.logLevel);
const pool = createPool(config.databaseUrl, { applicationName: "countersign-migrate" });
try {
  const { applied } = await migrate(pool);
  logger.info({ applied }, applied.length ? "migrations applied" : "schema already up to date");
} catch (err) {
  logger.error({ err: (err as Error).message }, "migration failed");
  process.exitCode = 1;
} finally {
  await pool.end();
}
