/**
 * `make bench`, part 2: the decision-only allow path over loopback (issue 5).
 * A real embedded PostgreSQL with synchronous commit, 1 and 2 Gateway
 * processes, unloaded (1 connection) and at 50 connections; next to the
 * baseline (baseline-server.ts) measured in the same run, and the ratio.
 * Prints figures; asserts nothing.
 */
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { generateSeed } from "../../protocol/src/evidence/index.js";
import { createPool, freePort, migrate, startEmbeddedPostgres } from "../../core/src/store/index.js";
import { createAuthorizationWorld, createGatewayKey, createMcpTool } from "../fixtures/authorization.js";
import { SAMPLE_TOOL, startSampleUpstream } from "../../local/src/sample-upstream.js";
import { startGatewayProcess, type GatewayProcess } from "../multi-replica/gateway-process.js";
import { runLoad, type LoadResult } from "./load.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
// Both sides run as built JavaScript, as in production: the Gateway from gateway/dist (tsc -b),
// the baseline bundled from its sources with esbuild (npm packages stay external).
execFileSync("npx", ["tsc", "-b", "gateway"], { cwd: root, stdio: "inherit" });
const baselineFile = path.join(root, ".cache", "bench", "baseline-server.mjs");
execFileSync("npx", ["esbuild", "test/bench/baseline-server.ts", "--bundle", "--platform=node", "--format=esm", "--packages=external", `--outfile=${baselineFile}`, "--log-level=warning"], { cwd: root, stdio: "inherit" });
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const dataDir = mkdtempSync(path.join(os.tmpdir(), "cs-bench-"));
chmodSync(dataDir, 0o755);
const pg = await startEmbeddedPostgres({ dataDir: path.join(dataDir, "pg") });
const pool = createPool(pg.url, { applicationName: "bench" });
await migrate(pool);
const keyHashSecret = randomBytes(32);
const signingKey = generateSeed();
const world = await createAuthorizationWorld(pool, keyHashSecret);
// The per-key bucket refills 20 per second: spread the load over enough keys that it never refuses.
const keys = [world.key];
for (let i = 0; i < 400; i++) keys.push((await createGatewayKey(pool, keyHashSecret, world.organizationId, world.agentId, world.ownerId)).key);
const body = JSON.stringify({ tool: world.tool, arguments: { order_id: "ord_1001", amount: 5, note: "bench" } });
const request = (i: number) => ({ headers: { authorization: `Bearer ${keys[i % keys.length]}`, "content-type": "application/json" }, body });

async function measure(urls: string[]): Promise<{ unloaded: LoadResult; loaded: LoadResult }> {
  await runLoad({ urls, path: "/v1/authorize", request }, 50, 2); // warm-up: JIT, pools, caches
  const unloaded = await runLoad({ urls, path: "/v1/authorize", request }, 1, Math.max(3, seconds / 2));
  const loaded = await runLoad({ urls, path: "/v1/authorize", request }, 50, seconds);
  return { unloaded, loaded };
}

async function startBaseline(template: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [baselineFile], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: pg.url, PORT: String(port), BASELINE_ORG: world.organizationId, BASELINE_AGENT: world.agentId, BASELINE_TEMPLATE: template },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (await fetch(`${url}/healthz`).then((r) => r.ok, () => false)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, stop: () => new Promise((resolve) => (child.on("exit", () => resolve()), child.kill("SIGTERM"))) };
}

// One real decision gives the baseline bodies and a bundle of the real sizes.
const probe = await startGatewayProcess({ databaseUrl: pg.url, keyHashSecret, signingKey, built: true });
const first = (await (await fetch(`${probe.url}/v1/authorize`, { method: "POST", ...request(0) })).json()) as { protected_action_id: string; status: string };
if (first.status !== "authorized") throw new Error(`the bench's decision was not authorized: ${JSON.stringify(first)}`);
await probe.stop();
const objects = await pool.query("select type, object from signed_objects where protected_action_id = $1", [first.protected_action_id]);
const receipt = await pool.query("select bundle from receipts where protected_action_id = $1", [first.protected_action_id]);
const bundle = (receipt.rows[0].bundle as Buffer).toString("utf8");
const byType = Object.fromEntries(objects.rows.map((r) => [r.type, r.object.body]));
const template = JSON.stringify({ task: byType.TASK, proposal: byType.PROPOSAL, receipt: JSON.parse(bundle).receipt.body, bundle });

const rows: Array<{ processes: number; gateway: { unloaded: LoadResult; loaded: LoadResult }; baseline: { unloaded: LoadResult; loaded: LoadResult } }> = [];
for (const processes of [1, 2]) {
  const gateways: GatewayProcess[] = [];
  for (let i = 0; i < processes; i++) gateways.push(await startGatewayProcess({ databaseUrl: pg.url, keyHashSecret, signingKey, built: true }));
  const gateway = await measure(gateways.map((g) => g.url));
  await Promise.all(gateways.map((g) => g.stop()));
  const baselines = [];
  for (let i = 0; i < processes; i++) baselines.push(await startBaseline(template));
  const baseline = await measure(baselines.map((b) => b.url));
  await Promise.all(baselines.map((b) => b.stop()));
  rows.push({ processes, gateway, baseline });
}

// tools/call through the Gateway (decision, claim, upstream exchange, RESULT, receipt) against the
// same call made directly to the upstream, one Gateway process.
const upstream = await startSampleUpstream("127.0.0.1", 0);
const mcpTool = await createMcpTool(pool, world.organizationId, { url: upstream.url, upstreamName: SAMPLE_TOOL, amountMapping: { amount_path: "amount", currency: "EUR" } });
const rpc = (name: string) => JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: { order_id: "ord_1", amount: 5 } } });
const mcpHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const classify = (code: number, text: string) => {
  try {
    const body = JSON.parse(text) as { result?: { isError?: boolean; structuredContent?: { service?: { code?: string } } }; error?: { code: number } };
    if (body.error) return `rpc_error_${body.error.code}`;
    return body.result?.isError ? (body.result.structuredContent?.service?.code ?? "isError") : "ok";
  } catch {
    return String(code);
  }
};
const gatewayForMcp = await startGatewayProcess({ databaseUrl: pg.url, keyHashSecret, signingKey, built: true, env: { COUNTERSIGN_ALLOW_LOOPBACK_URLS: "true" } });
const viaGateway = await (async () => {
  const target = { urls: [gatewayForMcp.url], path: "/mcp", classify, request: (i: number) => ({ headers: { ...mcpHeaders, authorization: `Bearer ${keys[i % keys.length]}` }, body: rpc(mcpTool.name) }) };
  await runLoad(target, 50, 2);
  return { unloaded: await runLoad(target, 1, Math.max(3, seconds / 2)), loaded: await runLoad(target, 50, seconds) };
})();
await gatewayForMcp.stop();
const direct = await (async () => {
  const target = { urls: [new URL(upstream.url).origin], path: "/mcp", classify, request: () => ({ headers: mcpHeaders, body: rpc(SAMPLE_TOOL) }) };
  await runLoad(target, 50, 2);
  return { unloaded: await runLoad(target, 1, Math.max(3, seconds / 2)), loaded: await runLoad(target, 50, seconds) };
})();
await upstream.stop();

const f = (n: number, d = 0) => n.toFixed(d);
const line = (r: LoadResult) => `${f(r.perSecond).padStart(6)}/s  p50 ${f(r.p50ms, 2).padStart(6)} ms  p99 ${f(r.p99ms, 2).padStart(7)} ms`;
console.log(`\nDecision-only allow path, POST /v1/authorize over loopback, synchronous commit, ${seconds} s per loaded run (this machine: ${os.cpus().length} cores)`);
for (const r of rows) {
  console.log(`\n${r.processes} process${r.processes > 1 ? "es" : ""}`);
  console.log(`  Gateway   unloaded ${line(r.gateway.unloaded)}   50 conns ${line(r.gateway.loaded)}   answers ${JSON.stringify(r.gateway.loaded.statuses)}`);
  console.log(`  baseline  unloaded ${line(r.baseline.unloaded)}   50 conns ${line(r.baseline.loaded)}`);
  console.log(`  ratio Gateway/baseline at 50 connections: ${f(r.gateway.loaded.perSecond / r.baseline.loaded.perSecond, 2)}`);
}
console.log(`\ntools/call through the Gateway (1 process) against the same call made directly to the upstream`);
console.log(`  Gateway   unloaded ${line(viaGateway.unloaded)}   50 conns ${line(viaGateway.loaded)}   answers ${JSON.stringify(viaGateway.loaded.statuses)}`);
console.log(`  direct    unloaded ${line(direct.unloaded)}   50 conns ${line(direct.loaded)}   answers ${JSON.stringify(direct.loaded.statuses)}`);
console.log(`  added latency unloaded: p50 +${f(viaGateway.unloaded.p50ms - direct.unloaded.p50ms, 2)} ms, p99 +${f(viaGateway.unloaded.p99ms - direct.unloaded.p99ms, 2)} ms`);
console.log(`  throughput ratio Gateway/direct at 50 connections: ${f(viaGateway.loaded.perSecond / direct.loaded.perSecond, 2)}`);
await pool.end();
await pg.stop();
rmSync(dataDir, { recursive: true, force: true });
