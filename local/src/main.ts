#!/usr/bin/env node
/**
 * `make run`: the whole service on one machine with nothing configured: an
 * embedded PostgreSQL (or DATABASE_URL), migrations, the Cloud API and the
 * Gateway. Ctrl-C stops everything in order; the data stays for the next run.
 */
import { startApi } from "@countersign/api";
import { loadConfigOrExit } from "@countersign/core/config";
import { createLogger, runUntilSignal } from "@countersign/core/server";
import { createPool, migrate } from "@countersign/core/store";
import { startGateway } from "@countersign/gateway";
import { localSettings } from "./config.js";
import { openDatabase } from "./database.js";

const config = loadConfigOrExit(localSettings);
const say = (line: string) => process.stdout.write(`${line}\n`);

const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, port: config.postgresPort });
const apiPool = createPool(database.url, { applicationName: "countersign-api" });
const gatewayPool = createPool(database.url, { applicationName: "countersign-gateway" });
const migrated = await migrate(apiPool);

const common = { host: config.host, shutdownGraceSeconds: config.shutdownGraceSeconds };
const api = await startApi({ ...common, pool: apiPool, logger: createLogger("api", config.logLevel), port: config.apiPort });
const gateway = await startGateway({
  ...common,
  pool: gatewayPool,
  logger: createLogger("gateway", config.logLevel),
  port: config.gatewayPort,
});

say(`Countersign is running.`);
say(`  database: ${database.description}; migrations applied now: ${migrated.applied.length}`);
say(`  Cloud API: ${api.url}/api/v1   (health: ${api.url}/readyz)`);
say(`  Gateway:   ${gateway.url}   (POST ${gateway.url}/v1/authorize, ${gateway.url}/mcp)`);
say(`Press Ctrl-C to stop.`);

runUntilSignal(async () => {
  await Promise.all([gateway.stop(), api.stop()]);
  await Promise.all([apiPool.end(), gatewayPool.end()]);
  await database.stop();
  say("Countersign stopped.");
}, say);
