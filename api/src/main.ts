#!/usr/bin/env node
/** The Cloud API process (container entry point): config, migrations, server, graceful stop. */
import { loadConfigOrExit } from "@countersign/core/config";
import { createLogger, runUntilSignal } from "@countersign/core/server";
import { createPool, migrate } from "@countersign/core/store";
import { apiSettings } from "./config.js";
import { startApi } from "./start.js";

const config = loadConfigOrExit(apiSettings);
const logger = createLogger("api", config.logLevel);
const pool = createPool(config.databaseUrl, { applicationName: "countersign-api" });
// The api owns the schema; several replicas starting together are safe (advisory lock).
await migrate(pool);
const server = await startApi({ pool, logger, ...config });
runUntilSignal(
  async () => {
    await server.stop();
    await pool.end();
  },
  (msg) => logger.info(msg),
);
