// Settings of the operator (docs/configuration.md). The operator never touches the database: it
// needs the Cloud API's address, its ServiceAccount token and where to hold its leader Lease.
import { hostname } from "node:os";
import { httpUrl, logLevel, port, seconds, setting } from "@countersign/protocol/config";
import { z } from "zod";

export const operatorSettings = {
  logLevel: setting(
    "COUNTERSIGN_LOG_LEVEL",
    logLevel,
    "one of fatal, error, warn, info, debug, trace, silent",
  ),
  /** Base address of the Cloud API (the operator calls {apiUrl}/api/v1/...). */
  apiUrl: setting("COUNTERSIGN_API_URL", httpUrl, "an http(s) URL"),
  /**
   * File holding the operator's ServiceAccount token for the Cloud API's audience (a projected
   * token volume); re-read on every request because the kubelet rotates it.
   */
  tokenFile: setting(
    "COUNTERSIGN_OPERATOR_TOKEN_FILE",
    z.string().min(1).default("/var/run/secrets/countersign.dev/token"),
    "a file path",
  ),
  /** Namespace of the leader Lease (the operator's own namespace). */
  leaseNamespace: setting(
    "COUNTERSIGN_OPERATOR_NAMESPACE",
    z.string().min(1).default("countersign-system"),
    "a namespace",
  ),
  leaseName: setting(
    "COUNTERSIGN_OPERATOR_LEASE",
    z.string().min(1).default("countersign-operator"),
    "a Lease name",
  ),
  /** This replica's name in the Lease; the pod name in a cluster. */
  identity: setting("POD_NAME", z.string().min(1).default(`${hostname()}-${process.pid}`), "a name"),
  /** Only watch this namespace (all namespaces when empty). */
  watchNamespace: setting("COUNTERSIGN_OPERATOR_WATCH_NAMESPACE", z.string().default(""), "a namespace"),
  /** Every object is reconciled again this often, repairing drift made outside Git. */
  resyncSeconds: setting(
    "COUNTERSIGN_OPERATOR_RESYNC_SECONDS",
    seconds(300, 86_400),
    "whole seconds 0-86400",
  ),
  healthPort: setting("COUNTERSIGN_OPERATOR_HEALTH_PORT", port(8083), "a port number 0-65535"),
  /**
   * Directory holding tls.crt and tls.key of the admission webhook (docs/crds.md, "Checked at
   * admission"); the webhook is served only when set.
   */
  webhookCertDir: setting("COUNTERSIGN_OPERATOR_WEBHOOK_CERT_DIR", z.string().default(""), "a directory"),
  webhookPort: setting("COUNTERSIGN_OPERATOR_WEBHOOK_PORT", port(9443), "a port number 0-65535"),
  host: setting("COUNTERSIGN_HOST", z.string().min(1).default("0.0.0.0"), "an address to listen on"),
  leaseDurationSeconds: setting(
    "COUNTERSIGN_OPERATOR_LEASE_DURATION_SECONDS",
    seconds(15, 600),
    "whole seconds",
  ),
  renewDeadlineSeconds: setting(
    "COUNTERSIGN_OPERATOR_RENEW_DEADLINE_SECONDS",
    seconds(10, 600),
    "whole seconds",
  ),
  retryPeriodSeconds: setting("COUNTERSIGN_OPERATOR_RETRY_PERIOD_SECONDS", seconds(2, 600), "whole seconds"),
};
