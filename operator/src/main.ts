// The operator's entry point: settings from the environment, kubeconfig from the cluster (or
// KUBECONFIG), the Cloud API client with the ServiceAccount token file, and a clean stop on
// SIGTERM that releases the leader Lease.
import { readFile } from "node:fs/promises";
import { KubeConfig } from "@kubernetes/client-node";
import { loadConfigOrExit } from "@countersign/protocol/config";
import { CloudApiClient, cloudApi } from "./cloud-api/index.js";
import { operatorSettings } from "./config.js";
import { createLogger } from "./log.js";
import { startOperator } from "./operator.js";

const config = loadConfigOrExit(operatorSettings);
const log = createLogger(config.logLevel);
const kubeConfig = new KubeConfig();
kubeConfig.loadFromDefault();

const client = new CloudApiClient({
  baseUrl: config.apiUrl,
  token: async () => (await readFile(config.tokenFile, "utf8")).trim(),
});

const operator = await startOperator({
  kubeConfig,
  cloud: cloudApi(client),
  log,
  identity: config.identity,
  leaseNamespace: config.leaseNamespace,
  leaseName: config.leaseName,
  watchNamespace: config.watchNamespace || undefined,
  resyncMs: config.resyncSeconds * 1000,
  leaseDurationMs: config.leaseDurationSeconds * 1000,
  renewDeadlineMs: config.renewDeadlineSeconds * 1000,
  retryPeriodMs: config.retryPeriodSeconds * 1000,
  health: { port: config.healthPort, host: config.host },
  admission: config.webhookCertDir
    ? { port: config.webhookPort, host: config.host, certDir: config.webhookCertDir }
    : undefined,
});
log.info(
  { identity: config.identity, healthPort: operator.health?.port, webhookPort: operator.admission?.port },
  "operator started",
);

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    operator.stop().then(
      () => process.exit(0),
      (error) => {
        log.error({ error: String(error) }, "stop failed");
        process.exit(1);
      },
    );
  });
}
