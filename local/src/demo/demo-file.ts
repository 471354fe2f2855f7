import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fromBase64url, privateKeyFromSeed, type IdentityDocument } from "@countersign/protocol/evidence";
import type { Pool } from "@countersign/core/store";
import { mcpToolBinding, seedDemo, type DemoSeed } from "./seed.js";
import { insertServerIdentity, organizationExists, pinMcpServer } from "./seed-store.js";

/** `.data/demo.json`: the demo's addresses and credentials for scripts and tutorials. */
export interface DemoFile extends DemoSeed {
  api_url: string;
  gateway_url: string;
  /**
   * The demo owner's bound personal key as a PKCS#8 PEM file, which the dashboard imports
   * (Your account, "Or import a bound key from its file") so the owner approves in the browser.
   */
  owner_key_file: string;
}

/** The owner's personal key file next to demo.json, rewritten every run from the stored seed. */
export const OWNER_KEY_FILE = "demo-owner-key.pem";

/**
 * The demo organization, seeded on the first run and reused afterwards (as
 * long as its organization still exists in the database); the file is
 * rewritten with this run's addresses. Mode 600: it holds a key and a password.
 */
export async function ensureDemo(
  pool: Pool,
  dataDir: string,
  keyHashSecret: Buffer,
  urls: {
    api_url: string;
    gateway_url: string;
    upstream_url: string;
    upstream_identity: (organizationId: string, serverId: string) => IdentityDocument;
  },
): Promise<{ demo: DemoFile; file: string; created: boolean }> {
  const file = path.join(dataDir, "demo.json");
  let seed: DemoSeed | undefined;
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, "utf8")) as DemoSeed;
    if ((await organizationExists(pool, stored.org_id)) && stored.mcp_server_id) seed = stored;
  }
  const created = seed === undefined;
  seed ??= await seedDemo(pool, keyHashSecret, urls.upstream_url);
  // The sample upstream is service-aware: its identity registered as the Cloud API stores one (kept if already there).
  const identity = urls.upstream_identity(seed.org_id, seed.mcp_server_id);
  await insertServerIdentity(pool, seed.org_id, identity);
  // The sample upstream may listen on another port this run: keep the demo's MCP server (and its pin) on it.
  const binding = JSON.stringify(
    mcpToolBinding(
      seed.mcp_server_id,
      urls.upstream_url,
      { amount_path: "amount", currency: "EUR" },
      identity.body.kid,
    ),
  );
  await pinMcpServer(pool, seed.mcp_server_id, urls.upstream_url, identity.body.kid, binding);
  const ownerKeyFile = path.join(dataDir, OWNER_KEY_FILE);
  const ownerSeed = fromBase64url(seed.owner_identity_key);
  if (!ownerSeed) throw new Error(`${file}: owner_identity_key is not base64url`);
  writeFileSync(
    ownerKeyFile,
    privateKeyFromSeed(ownerSeed).export({ type: "pkcs8", format: "pem" }).toString(),
    {
      mode: 0o600,
    },
  );
  const demo: DemoFile = {
    ...seed,
    api_url: urls.api_url,
    gateway_url: urls.gateway_url,
    owner_key_file: ownerKeyFile,
  };
  writeFileSync(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return { demo, file, created };
}

/** The command the demo prints: one authorization, copy-paste ready. */
export function demoCurl(demo: DemoFile): string {
  const body = JSON.stringify({
    tool: demo.decision_only_tool,
    arguments: demo.allowed_arguments,
    idempotency_key: "demo-refund-ord_1001",
  });
  return `curl -s -X POST ${demo.gateway_url}/v1/authorize -H 'Authorization: Bearer ${demo.gateway_key}' -H 'Content-Type: application/json' -d '${body}'`;
}
