import type { AuthorizeService, DecisionService, PolicyCache } from "@countersign/core/decision";
import type { GatewayIdentity } from "@countersign/core/identities";
import type { AddressRules } from "@countersign/core/net";
import type { UpstreamEras, UpstreamSessions } from "@countersign/core/upstream";
import type { ClaimWithDecisionFn } from "@countersign/core/execution";
import type { ResultWriter } from "@countersign/core/actions";
import type { Pool } from "@countersign/core/store";
import type { OrganizationQueue } from "./limits/organization-queue.js";
import type { GatewayMetrics } from "./metrics.js";

/** What Gateway-enforced MCP needs beyond the decision: the signer, the upstream rules, the stored credentials' key. */
export interface McpContext {
  decisions: DecisionService;
  identity: GatewayIdentity;
  policies: PolicyCache;
  /** COUNTERSIGN_CREDENTIAL_KEY: decrypts MCP servers' authorization headers (UPSTREAM_CREDENTIAL_INVALID without it). */
  credentialKey: Buffer | undefined;
  /** SPEC 6.4 on every upstream connection; loopback only with COUNTERSIGN_ALLOW_LOOPBACK_URLS. */
  rules: AddressRules;
  /** Where a failure answered to the agent as a refusal (GATEWAY_ERROR) is logged; the agent sees only the code. */
  log?: { error(fields: object, message: string): void };
  ca?: string[];
  /** One persistent MCP session per upstream server for this process. */
  sessions: UpstreamSessions;
  /** Which MCP revision each upstream server speaks, per organization, found once and remembered. */
  eras: UpstreamEras;
  /** This process's RESULT writes, batched when they queue (core/src/actions/finish-batch.ts). */
  results: ResultWriter;
  /** SPEC 8.4: 30 s; tests shorten it. */
  upstreamTimeoutMs?: number;
  /** A single tools/call is answered without an SDK server per request (mcp/direct-tools-call.ts); tests turn it off to compare. */
  directToolsCall: boolean;
  /** Browser origins beyond loopback pages that may call /mcp (http/origin.ts). */
  allowedOrigins: ReadonlySet<string>;
  /** Claims an allowed call in its decision's write (one commit fewer before the upstream call). */
  claimWithDecision: ClaimWithDecisionFn;
}

/** What the Gateway's routes share: one per server instance. */
export interface GatewayContext {
  pool: Pool;
  keyHashSecret: Buffer;
  metrics: GatewayMetrics;
  queue: OrganizationQueue;
  decisions: AuthorizeService;
  /** Absent: /mcp is not served (a context built for /v1/authorize alone). */
  mcp?: McpContext;
}
