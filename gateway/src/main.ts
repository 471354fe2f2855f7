#!/usr/bin/env node
/** A Gateway replica (container entry point): config, server, graceful stop. Migrations are the api's job. */
import { loadConfigOrExit } from "@countersign/core/config";
import { createLogger, runUntilSignal } from "@countersign/core/server";
import { createPool } from "@countersign/core/store";
import { startTelemetry } from "@countersign/core/telemetry";
import { gatewaySettings } from "./config.js";
import { startGateway } from "./start.js";

const config = loadConfigOrExit(gatewaySettings);
const logger = createLogger("gateway", config.logLevel);
const stopTelemetry = startTelemetry("countersign-gateway", config.otlpEndpoint);
const pool = createPool(config.databaseUrl, { applicationName: "countersign-gateway", genericPlans: true });
const server = await startGateway({ pool, logger, ...config, upstreamCa: config.upstreamCaFile });
logger.info({ kid: server.identity.signer.kid, instance: server.instanceId }, "gateway identity registered");
runUntilSignal(
  async () => {
    await server.stop();
    await pool.end();
    await stopTelemetry();
  },
  (msg) => logger.info(msg),
);
