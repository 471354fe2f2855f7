import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { generateSeed } from "../../protocol/src/evidence/index.js";
import { createPool, migrate, startEmbeddedPostgres } from "../../core/src/store/index.js";
import { createAuthorizationWorld, createGatewayKey } from "../../test/fixtures/authorization.js";
import { startGatewayProcess } from "../../test/multi-replica/gateway-process.js";
import { runLoad } from "../../test/bench/load.js";

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const dataDir = mkdtempSync(path.join(os.tmpdir(), "cs-sqlab-"));
chmodSync(dataDir, 0o755);
const pg = await startEmbeddedPostgres({ dataDir: path.join(dataDir, "pg") });
const pool = createPool(pg.url, { applicationName: "sqlab" });
await migrate(pool);
const keyHashSecret = randomBytes(32);
const signingKey = generateSeed();
const world = await createAuthorizationWorld(pool, keyHashSecret, { plan: "enterprise" });
const keys = [world.key];
for (let i = 1; i < 400; i++) keys.push((await createGatewayKey(pool, keyHashSecret, world.organizationId, world.agentId, world.ownerId)).key);
function cpu(pid: number) { try { const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" "); return (Number(f[11]) + Number(f[12])) / 100; } catch { return 0; } }
function pgPids() { const all = readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map(Number);
  const pm = all.find((p) => { try { return readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0").join(" ").includes(`-p ${pg.port}`); } catch { return false; } })!;
  return [pm, ...all.filter((p) => { try { return readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1]!.split(" ")[1] === String(pm); } catch { return false; } })]; }
const idx = async (names: string[]) => (await pool.query("select indexname, indexdef from pg_indexes where indexname = any($1)", [names])).rows as {indexname:string,indexdef:string}[];
const variants: Record<string, { apply: string[]; revert: string[] }> = { base: { apply: [], revert: [] } };
const groups = JSON.parse(process.env.PROBE_INDEXES ?? "{}") as Record<string, string[]>;
for (const [name, names] of Object.entries(groups)) { const d = await idx(names); variants[name] = { apply: d.map((x) => `drop index ${x.indexname}`), revert: d.map((x) => x.indexdef) }; }
for (const [name, sql] of Object.entries(JSON.parse(process.env.PROBE_SQL ?? "{}") as Record<string, [string[], string[]]>)) variants[name] = { apply: sql[0], revert: sql[1] };
const gw = await startGatewayProcess({ databaseUrl: pg.url, keyHashSecret, signingKey, built: true });
const load = { urls: [gw.url], path: "/v1/authorize", request: (i: number) => ({ headers: { authorization: `Bearer ${keys[i % keys.length]}`, "content-type": "application/json" }, body: JSON.stringify({ tool: world.tool, arguments: { order_id: "ord_1001", amount: 5, note: "bench" } }) }) };
await runLoad(load, 50, 3);
const out: Record<string, string[]> = {};
for (let round = 0; round < Number(process.env.PROBE_ROUNDS ?? 3); round++)
  for (const [name, v] of Object.entries(variants)) {
    for (const s of v.apply) await pool.query(s);
    await pool.query("checkpoint");
    const pids = pgPids(); const sum = (ps: number[]) => ps.reduce((a, p) => a + cpu(p), 0);
    const p0 = sum(pids), g0 = cpu(gw.pid);
    const r = await runLoad(load, 50, seconds);
    const p1 = sum(pgPids()), g1 = cpu(gw.pid);
    (out[name] ??= []).push(`${Math.round(r.perSecond)}/s pg ${((p1 - p0) * 1000 / r.requests).toFixed(3)} gw ${((g1 - g0) * 1000 / r.requests).toFixed(3)}`);
    for (const s of v.revert) await pool.query(s);
  }
for (const [k, v] of Object.entries(out)) console.log(k.padEnd(12), v.join(" | "));
await gw.stop(); await pool.end(); await pg.stop(); rmSync(dataDir, { recursive: true, force: true });
