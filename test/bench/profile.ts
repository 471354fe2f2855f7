/**
 * `make profile`: where a decision's time goes, measured rather than guessed.
 * One built Gateway process under --cpu-prof on a real embedded PostgreSQL
 * with pg_stat_statements, loaded with POST /v1/authorize (allow path), then
 * with MCP tools/call against an upstream in its own process. For each path
 * it prints PostgreSQL's statements (calls, execution and planning time per
 * decision) and the Gateway's CPU by module and by function, then, from a
 * second Gateway process at one connection, how long each stage of a request
 * took by its OpenTelemetry spans. The profiles stay in
 * .cache/bench/profiles/ for Chrome DevTools. Asserts nothing.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { generateSeed } from "../../protocol/src/evidence/index.js";
import { createPool, migrate, startEmbeddedPostgres } from "../../core/src/store/index.js";
import { createAuthorizationWorld, createGatewayKey, createMcpTool } from "../fixtures/authorization.js";
import { SAMPLE_TOOL } from "../../local/src/sample-upstream.js";
import { startGatewayProcess } from "../multi-replica/gateway-process.js";
import { runLoad } from "./load.js";
import { buildBenchedPackages, bundle, root } from "./built.js";
import { summarize } from "./cpu-profile.js";
import { startSpanCollector } from "./span-collector.js";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.PROFILE_CONNECTIONS ?? 50);
buildBenchedPackages();
const upstreamFile = bundle("upstream-server");
const profiles = path.join(root, ".cache", "bench", "profiles");
rmSync(profiles, { recursive: true, force: true });

const dataDir = mkdtempSync(path.join(os.tmpdir(), "cs-profile-"));
chmodSync(dataDir, 0o755);
const pg = await startEmbeddedPostgres({
  dataDir: path.join(dataDir, "pg"),
  settings: [
    "shared_preload_libraries=pg_stat_statements",
    "pg_stat_statements.track=all",
    "pg_stat_statements.track_planning=on",
  ],
});
const pool = createPool(pg.url, { applicationName: "profile" });
await migrate(pool);
await pool.query("create extension if not exists pg_stat_statements");
const keyHashSecret = randomBytes(32);
const signingKey = generateSeed();
const world = await createAuthorizationWorld(pool, keyHashSecret, { plan: "enterprise" });
const keys = [world.key];
for (let i = 1; i < 400; i++)
  keys.push(
    (await createGatewayKey(pool, keyHashSecret, world.organizationId, world.agentId, world.ownerId)).key,
  );

const upstream = await new Promise<{ url: string; stop: () => void }>((resolve, reject) => {
  const child = spawn(process.execPath, [upstreamFile], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  child.once("exit", (code) => reject(new Error(`upstream exited ${code}`)));
  createInterface({ input: child.stdout }).once("line", (line) =>
    resolve({ url: line.trim(), stop: () => (child.removeAllListeners("exit"), child.kill("SIGTERM")) }),
  );
});
const mcpTool = await createMcpTool(pool, world.organizationId, {
  url: upstream.url,
  upstreamName: SAMPLE_TOOL,
  amountMapping: { amount_path: "amount", currency: "EUR" },
});

const paths = {
  authorize: {
    path: "/v1/authorize",
    body: JSON.stringify({ tool: world.tool, arguments: { order_id: "ord_1001", amount: 5, note: "bench" } }),
  },
  "tools-call": {
    path: "/mcp",
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: mcpTool.name, arguments: { order_id: "ord_1", amount: 5 } },
    }),
  },
};

const ms = (n: number) => n.toFixed(3).padStart(9);
const spans = await startSpanCollector();
for (const [name, target] of Object.entries(paths)) {
  const dir = path.join(profiles, name);
  mkdirSync(dir, { recursive: true });
  const gateway = await startGatewayProcess({
    databaseUrl: pg.url,
    keyHashSecret,
    signingKey,
    built: true,
    nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`],
    env: { COUNTERSIGN_ALLOW_LOOPBACK_URLS: "true" },
  });
  const load = {
    urls: [gateway.url],
    path: target.path,
    request: (i: number) => ({
      headers: {
        authorization: `Bearer ${keys[i % keys.length]}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: target.body,
    }),
  };
  await runLoad(load, connections, 2); // warm-up: JIT, pools, prepared statements, sessions
  await pool.query("select pg_stat_statements_reset()");
  const result = await runLoad(load, connections, seconds);
  const statements = await pool.query<{
    calls: string;
    exec: number;
    plan: number;
    rows: string;
    query: string;
  }>(
    `select calls, total_exec_time as exec, total_plan_time as plan, rows, query
       from pg_stat_statements
      where query not like '%pg_stat_statements%'
      order by total_exec_time + total_plan_time desc limit 20`,
  );
  await gateway.stop();
  const n = Math.max(1, result.requests);
  console.log(
    `\n== ${name}: ${connections} connections, ${seconds} s: ${result.perSecond.toFixed(0)}/s, p50 ${result.p50ms.toFixed(2)} ms, answers ${JSON.stringify(result.statuses)}`,
  );
  console.log(`\nPostgreSQL statements per ${name} (${n} requests): calls, exec ms, plan ms`);
  for (const s of statements.rows) {
    const text = s.query.replace(/\s+/g, " ").slice(0, 110);
    console.log(
      `${(Number(s.calls) / n).toFixed(2).padStart(6)} ${ms(s.exec / n)} ${ms(s.plan / n)}  ${text}`,
    );
  }
  const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
  if (file) printProfile(path.join(dir, file), n);
  else console.log("(no CPU profile written)");

  // Where one request's latency goes, unloaded: the Gateway's own spans, from a process of its own
  // (exporting spans costs CPU the profile above should not count).
  const traced = await startGatewayProcess({
    databaseUrl: pg.url,
    keyHashSecret,
    signingKey,
    built: true,
    env: {
      COUNTERSIGN_ALLOW_LOOPBACK_URLS: "true",
      OTEL_EXPORTER_OTLP_ENDPOINT: spans.endpoint,
      // Spans leave the process within 0.1 s, so a warm-up's are received before they are forgotten.
      OTEL_BSP_SCHEDULE_DELAY: "100",
    },
  });
  const tracedLoad = { ...load, urls: [traced.url] };
  await runLoad(tracedLoad, connections, 2);
  await runLoad(tracedLoad, 1, 2);
  await new Promise((r) => setTimeout(r, 1000));
  spans.reset();
  const unloaded = await runLoad(tracedLoad, 1, seconds);
  await traced.stop(); // flushes the spans still buffered
  console.log(
    `\n  stages of one request at 1 connection (spans; ${unloaded.requests} requests, p50 ${unloaded.p50ms.toFixed(2)} ms as the client saw it): per request, p50 and p90 ms`,
  );
  for (const stage of spans.stages(unloaded.requests))
    console.log(
      `  ${stage.name.padEnd(22)} ${stage.perRequest.toFixed(2).padStart(5)} ${ms(stage.p50ms)} ${ms(stage.p90ms)}`,
    );
}
await spans.close();
upstream.stop();
await pool.end();
await pg.stop();
rmSync(dataDir, { recursive: true, force: true });
console.log(`\nProfiles: ${profiles} (open in Chrome DevTools, Performance tab)`);

function printProfile(file: string, n: number): void {
  const summary = summarize(file);
  const busy = summary.totalMs - summary.idleMs;
  console.log(
    `\nGateway CPU: ${busy.toFixed(0)} ms busy of ${summary.totalMs.toFixed(0)} ms sampled (warm-up and start included); per request ≈ ${(busy / n).toFixed(3)} ms`,
  );
  console.log(`\n  by module (self ms per request)`);
  for (const [k, v] of summary.byModule) console.log(`  ${ms(v / n)}  ${k}`);
  console.log(`\n  by function (self ms per request)`);
  for (const [k, v] of summary.bySelf) console.log(`  ${ms(v / n)}  ${k}`);
  console.log(`\n  our functions (inclusive ms per request)`);
  for (const [k, v] of summary.byTotal) console.log(`  ${ms(v / n)}  ${k}`);
}
