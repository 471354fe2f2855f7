#!/usr/bin/env node
/** The Cloud API process (container entry point): config, migrations, server, graceful stop. */
import { ConfigError, loadConfigOrExit } from "@countersign/core/config";
import { createLogger, runUntilSignal } from "@countersign/core/server";
import { createPool, migrate } from "@countersign/core/store";
import { cloudOptionsFrom } from "./cloud-options.js";
import { apiSettings } from "./config.js";
import { startApi } from "./start.js";

const config = loadConfigOrExit(apiSettings);
const logger = createLogger("api", config.logLevel);
const cloud = (() => {
  try {
    return cloudOptionsFrom(config, (line) => logger.info(line));
  } catch (err) {
    // Settings that load one by one but not together (half a billing configuration): the same exit as loadConfigOrExit.
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
})();
const pool = createPool(config.databaseUrl, { applicationName: "countersign-api" });
// The api owns the schema; several replicas starting together are safe (advisory lock).
await migrate(pool);
logger.info(`account e-mail goes to ${cloud.mailer.describe}`);
const server = await startApi({ pool, logger, ...config, cloud });
runUntilSignal(
  async () => {
    await server.stop();
    await pool.end();
  },
  (msg) => logger.info(msg),
);
