import { z } from "zod";
import { caCertificates } from "./certificates.js";
import { key32, secretBytes } from "./secrets.js";
import { flag, httpUrl, logLevel, postgresUrl, seconds, setting } from "@countersign/protocol/config";

/** Settings every server reads. Each server adds its own (api/src/config.ts, gateway/src/config.ts). */
export const commonSettings = {
  databaseUrl: setting("DATABASE_URL", postgresUrl, "a postgres:// URL"),
  host: setting("COUNTERSIGN_HOST", z.string().min(1).default("0.0.0.0"), "an address to listen on"),
  logLevel: setting(
    "COUNTERSIGN_LOG_LEVEL",
    logLevel,
    "one of fatal, error, warn, info, debug, trace, silent",
  ),
  /** How long SIGTERM waits for in-flight requests before closing their connections. */
  shutdownGraceSeconds: setting(
    "COUNTERSIGN_SHUTDOWN_GRACE_SECONDS",
    seconds(25, 600),
    "whole seconds 0-600",
  ),
  /** OpenTelemetry traces are off unless an OTLP endpoint is set. */
  otlpEndpoint: setting("OTEL_EXPORTER_OTLP_ENDPOINT", httpUrl.optional(), "an http(s) URL"),
  /** HMAC key for API key secrets (SPEC 5.1); the same on every api and gateway replica. */
  keyHashSecret: setting(
    "COUNTERSIGN_KEY_HASH_SECRET",
    secretBytes,
    "at least 32 bytes as base64 or base64url (openssl rand -base64 32)",
  ),
  /**
   * AES-256-GCM key of secrets the service uses itself later (webhook signing
   * secrets, core/credentials); the same on every replica. Required by the api.
   */
  credentialKey: setting("COUNTERSIGN_CREDENTIAL_KEY", key32.optional(), "32 bytes as base64 or base64url"),
  metricsEnabled: setting("COUNTERSIGN_METRICS", flag(true), "true or false"),
  /**
   * SPEC 2.9: the full explanation people see of each decision (every rule and what held). Off: the
   * minimal one (decision, deciding rule, message), as for one over 16 KiB; the decision is the same.
   * Read by the Gateway (recorded decisions) and the api (dry runs); the agent's explanation follows
   * its disclosure level either way.
   */
  detailedExplanations: setting("COUNTERSIGN_DETAILED_EXPLANATIONS", flag(true), "true or false"),
  /** Lets webhook and MCP server URLs point at loopback (only loopback, never private ranges): local runs and tests. */
  allowLoopbackUrls: setting("COUNTERSIGN_ALLOW_LOOPBACK_URLS", flag(false), "true or false"),
  /**
   * Extra CA certificates an MCP server's certificate may chain to, besides the public roots (a
   * server on a public address whose certificate comes from the organization's own CA): the
   * Gateway's calls and the api's discovery and identity checks trust them.
   */
  upstreamCaFile: setting(
    "COUNTERSIGN_UPSTREAM_CA_FILE",
    caCertificates.optional(),
    "a readable file of PEM CA certificates",
  ),
};
