import {
  caCertificates,
  commonSettings,
  ed25519Seed,
  flag,
  port,
  postgresUrl,
  secretBytes,
  setting,
} from "@countersign/core/config";
import { z } from "zod";

/**
 * `make run` settings. Nothing is required: without DATABASE_URL an embedded
 * PostgreSQL keeps its data under COUNTERSIGN_DATA_DIR.
 */
export const localSettings = {
  ...commonSettings,
  databaseUrl: setting("DATABASE_URL", postgresUrl.optional(), "a postgres:// URL"),
  host: setting("COUNTERSIGN_HOST", z.string().min(1).default("127.0.0.1"), "an address to listen on"),
  logLevel: setting(
    "COUNTERSIGN_LOG_LEVEL",
    z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("warn"),
    "one of fatal, error, warn, info, debug, trace, silent",
  ),
  shutdownGraceSeconds: setting(
    "COUNTERSIGN_SHUTDOWN_GRACE_SECONDS",
    z.coerce.number().int().min(0).max(600).default(5),
    "whole seconds 0-600",
  ),
  /** Generated into <dataDir>/secrets.json when not given. */
  keyHashSecret: setting(
    "COUNTERSIGN_KEY_HASH_SECRET",
    secretBytes.optional(),
    "at least 32 bytes as base64 or base64url (openssl rand -base64 32)",
  ),
  gatewaySigningKey: setting(
    "COUNTERSIGN_GATEWAY_SIGNING_KEY",
    ed25519Seed.optional(),
    "an Ed25519 seed: 32 bytes as base64url",
  ),
  /** Webhook and MCP server receivers on this machine are the point of a local run. */
  allowLoopbackUrls: setting("COUNTERSIGN_ALLOW_LOOPBACK_URLS", flag(true), "true or false"),
  /** PEM file of extra CA certificates webhook receivers may chain to (a receiver on this machine with its own CA). */
  webhookCaFile: setting(
    "COUNTERSIGN_WEBHOOK_CA_FILE",
    caCertificates.optional(),
    "a readable file of PEM CA certificates",
  ),
  dataDir: setting("COUNTERSIGN_DATA_DIR", z.string().min(1).default(".data"), "a folder"),
  apiPort: setting("COUNTERSIGN_API_PORT", port(8080), "a port number 0-65535"),
  gatewayPort: setting("COUNTERSIGN_GATEWAY_PORT", port(8081), "a port number 0-65535"),
  /** The sample upstream MCP server the demo's Gateway-enforced tool runs on. */
  sampleUpstreamPort: setting("COUNTERSIGN_SAMPLE_UPSTREAM_PORT", port(8082), "a port number 0-65535"),
  /** The SMTP catcher the Cloud API sends account mail to, and the inbox page that shows it. */
  smtpPort: setting("COUNTERSIGN_SMTP_PORT", port(1025), "a port number 0-65535"),
  inboxPort: setting("COUNTERSIGN_INBOX_PORT", port(8025), "a port number 0-65535"),
  /** The dashboard's build; `make run` builds it first. */
  dashboardDir: setting("COUNTERSIGN_DASHBOARD_DIR", z.string().min(1).default("dashboard/dist"), "a folder"),
  /** 0 picks a free port on every start. */
  postgresPort: setting("COUNTERSIGN_POSTGRES_PORT", port(0), "a port number 0-65535"),
};
