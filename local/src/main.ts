#!/usr/bin/env node
/**
 * `make run`: the whole service on one machine with nothing configured: an
 * embedded PostgreSQL (or DATABASE_URL), migrations, the Cloud API and the
 * Gateway. Ctrl-C stops everything in order; the data stays for the next run.
 */
import path from "node:path";
import { cloudOptionsFrom, startApi } from "@countersign/api";
import { loadConfigOrExit } from "@countersign/core/config";
import { createLogger, runUntilSignal } from "@countersign/core/server";
import { createPool, migrate } from "@countersign/core/store";
import { startGateway } from "@countersign/gateway";
import { localSettings } from "./config.js";
import { openDatabase } from "./database.js";
import { loadOrCreateSecrets } from "./secrets.js";
import { demoCurl, ensureDemo } from "./demo/demo-file.js";
import { startInboxPage } from "./mail-catcher/inbox-page.js";
import { startSmtpCatcher } from "./mail-catcher/smtp-catcher.js";
import { sampleUpstreamSeed, startSampleUpstream } from "./sample-upstream.js";
import { nodeSigner } from "@countersign/protocol/evidence";
import { StartedParts, startupFailure } from "./startup-failure.js";

const config = loadConfigOrExit(localSettings);
const say = (line: string) => process.stdout.write(`${line}\n`);

// Every port this run listens on, by the setting that chose it (docs/configuration.md, make run): a
// port another program holds stops the start with one line naming that setting.
const ports = {
  COUNTERSIGN_API_PORT: config.apiPort,
  COUNTERSIGN_GATEWAY_PORT: config.gatewayPort,
  COUNTERSIGN_SAMPLE_UPSTREAM_PORT: config.sampleUpstreamPort,
  COUNTERSIGN_SMTP_PORT: config.smtpPort,
  COUNTERSIGN_INBOX_PORT: config.inboxPort,
  ...(config.databaseUrl ? {} : { COUNTERSIGN_POSTGRES_PORT: config.postgresPort }),
};

const database = await openDatabase({
  databaseUrl: config.databaseUrl,
  dataDir: config.dataDir,
  port: config.postgresPort,
  log: say,
}).catch((err: Error) => {
  process.stderr.write(`cannot start the embedded PostgreSQL: ${startupFailure(err, ports)}\n`);
  process.exit(1);
});

// From here a start that fails part-way (a port another program holds) stops what it started, the
// embedded PostgreSQL included, and says why in one line instead of a stack trace.
const parts = new StartedParts();
parts.add(database.stop);
async function started<T>(part: Promise<T>, stop?: (value: T) => Promise<void>): Promise<T> {
  const value = await part.catch(async (err: unknown) => {
    await parts.stopAll().catch(() => undefined);
    process.stderr.write(`cannot start Countersign: ${startupFailure(err, ports)}\n`);
    process.exit(1);
  });
  if (stop) parts.add(() => stop(value));
  return value;
}

const apiPool = createPool(database.url, { applicationName: "countersign-api" });
const gatewayPool = createPool(database.url, { applicationName: "countersign-gateway", genericPlans: true });
parts.add(async () => {
  await Promise.all([apiPool.end(), gatewayPool.end()]);
});
const migrated = await started(migrate(apiPool));

const common = { host: config.host, shutdownGraceSeconds: config.shutdownGraceSeconds };
// Accounts and keys need the installation secret; without one, it is generated once into the data folder.
const secrets =
  config.keyHashSecret && config.gatewaySigningKey ? undefined : loadOrCreateSecrets(config.dataDir);
const keyHashSecret = config.keyHashSecret ?? secrets!.keyHashSecret;
const gatewaySigningKey = config.gatewaySigningKey ?? secrets!.gatewaySigningKey;
// Webhook signing secrets are stored under this key; generated once like the others.
const credentialKey = config.credentialKey ?? loadOrCreateSecrets(config.dataDir).credentialKey;
// Account e-mails go over real SMTP to a catcher on this machine; a person reads them on its inbox page.
const smtp = await started(startSmtpCatcher(config.host, config.smtpPort), (s) => s.close());
const inbox = await started(startInboxPage(smtp, config.host, config.inboxPort), (i) => i.close());
const dashboardOrigin = `http://${config.host}:${config.apiPort}`;
const cloud = cloudOptionsFrom(
  {
    keyHashSecret,
    dashboardOrigin,
    smtpUrl: smtp.url,
    defaultPlan: "enterprise",
    detailedExplanations: config.detailedExplanations,
    mailFrom: "Countersign <no-reply@countersign.invalid>",
    mailOutboxDir: path.join(config.dataDir, "outbox"),
    trustedProxyHops: 0,
    tokenReviewAudience: "countersign",
    credentialKey,
    // Receivers on this machine are the point of a local run.
    allowLoopbackUrls: config.allowLoopbackUrls,
    webhookCaFile: config.webhookCaFile,
    upstreamCaFile: config.upstreamCaFile,
    // Closure receipts of rejections and cancellations are signed with the Gateway's identity.
    gatewaySigningKey,
  },
  say,
);
// The sample upstream is service-aware: it trusts this Gateway's identity and signs with its own.
const upstream = await started(
  startSampleUpstream("127.0.0.1", config.sampleUpstreamPort, {
    seed: sampleUpstreamSeed(gatewaySigningKey),
    gateway: nodeSigner(gatewaySigningKey).kid,
  }),
  (u) => u.stop(),
);
const gateway = await started(
  startGateway({
    ...common,
    pool: gatewayPool,
    logger: createLogger("gateway", config.logLevel),
    port: config.gatewayPort,
    databaseUrl: database.url,
    keyHashSecret,
    signingKey: gatewaySigningKey,
    defaultPlan: "enterprise",
    detailedExplanations: config.detailedExplanations,
    credentialKey,
    // The sample upstream listens on loopback.
    allowLoopbackUrls: config.allowLoopbackUrls,
    upstreamCa: config.upstreamCaFile,
  }),
  (g) => g.stop(),
);
const api = await started(
  startApi({
    ...common,
    pool: apiPool,
    logger: createLogger("api", config.logLevel),
    port: config.apiPort,
    cloud,
    dashboardDir: path.resolve(config.dashboardDir),
    // The dashboard shows agents this address with the snippets that connect them (COUNTERSIGN_GATEWAY_URL).
    gatewayUrl: gateway.url,
  }),
  (a) => a.stop(),
);

const {
  demo,
  file: demoFile,
  created,
} = await started(
  ensureDemo(apiPool, config.dataDir, keyHashSecret, {
    api_url: `${api.url}/api/v1`,
    gateway_url: gateway.url,
    upstream_url: upstream.url,
    upstream_identity: upstream.identity,
  }),
);

say(`Countersign is running.`);
say(`  Dashboard: ${api.url}/   (sign up there; the Cloud API serves it on its own origin)`);
say(
  `  Inbox:     ${inbox.url}/   (every account e-mail, with its links: verification, password reset, invitations)`,
);
say(`  database: ${database.description}; migrations applied now: ${migrated.applied.length}`);
say(`  Cloud API: ${api.url}/api/v1   (health: ${api.url}/readyz)`);
say(`  Gateway:   ${gateway.url}   (POST ${gateway.url}/v1/authorize, ${gateway.url}/mcp)`);
say(`  Sample upstream MCP server: ${upstream.url} (tool ${demo.mcp_tool} through the Gateway's /mcp)`);
say(`  Account e-mail: sent to ${cloud.mailer.describe}, read on the inbox page.`);
say(
  `  Demo organization ${created ? "created" : "reused"}: sign in as ${demo.owner_email}; credentials and keys in ${demoFile}`,
);
say(`  Try an authorization:`);
say(`    ${demoCurl(demo)}`);
say(`Press Ctrl-C to stop.`);

// Newest first: the API and the Gateway drain, then the upstream, the mail catcher, the pools, PostgreSQL.
runUntilSignal(async () => {
  await parts.stopAll();
  say("Countersign stopped.");
}, say);
