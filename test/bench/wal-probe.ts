/**
 * What one decision writes to the WAL, by relation (pg_walinspect): run with
 * `node --conditions=countersign-source --import tsx test/bench/wal-probe.ts`.
 * Full-page images are left out (full_page_writes off) so the figures are the
 * records a decision adds; asserts nothing.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { generateSeed } from "../../protocol/src/evidence/index.js";
import { createPool, migrate, startEmbeddedPostgres } from "../../core/src/store/index.js";
import { createAuthorizationWorld } from "../fixtures/authorization.js";
import { startGatewayProcess } from "../multi-replica/gateway-process.js";

const dataDir = mkdtempSync(path.join(os.tmpdir(), "cs-wal-"));
chmodSync(dataDir, 0o755);
const pg = await startEmbeddedPostgres({
  dataDir: path.join(dataDir, "pg"),
  settings: ["full_page_writes=off"],
});
const pool = createPool(pg.url, { applicationName: "wal-probe" });
await migrate(pool);
await pool.query("create extension if not exists pg_walinspect");
const keyHashSecret = randomBytes(32);
const world = await createAuthorizationWorld(pool, keyHashSecret, { plan: "enterprise" });
const gateway = await startGatewayProcess({
  databaseUrl: pg.url,
  keyHashSecret,
  signingKey: generateSeed(),
  built: true,
});
const call = () =>
  fetch(`${gateway.url}/v1/authorize`, {
    method: "POST",
    headers: { authorization: `Bearer ${world.key}`, "content-type": "application/json" },
    body: JSON.stringify({ tool: world.tool, arguments: { order_id: "ord_1001", amount: 5, note: "bench" } }),
  }).then((r) => r.json());
for (let i = 0; i < 5; i++) await call();
await pool.query("checkpoint");
const n = 50;
const start = (await pool.query("select pg_current_wal_lsn()::text as l")).rows[0].l;
for (let i = 0; i < n; i++) await call();
const end = (await pool.query("select pg_current_wal_lsn()::text as l")).rows[0].l;
const { rows } = await pool.query(
  `select coalesce(coalesce(o.relname || ' (toast)', c.relname), r.block_ref, '(none)') as rel, r.resource_manager as rm, count(*) as records,
          sum(r.record_length) as bytes, sum(r.main_data_length) as main, sum(r.fpi_length) as fpi
     from pg_get_wal_records_info($1, $2) r
     left join pg_class c on r.block_ref like '%rel 1663/%/' || c.relfilenode || ' %'
     left join pg_class o on o.reltoastrelid = c.oid
    group by 1, 2 order by 4 desc limit 40`,
  [start, end],
);
const total = rows.reduce((a, r) => a + Number(r.bytes), 0);
console.log(`WAL per decision: ${(total / n / 1024).toFixed(2)} KiB (${n} decisions)`);
for (const r of rows)
  console.log(
    `${(Number(r.bytes) / n).toFixed(0).padStart(7)} B  ${(Number(r.records) / n).toFixed(2).padStart(6)} rec  ${r.rm.padEnd(12)} ${String(r.rel).slice(0, 80)}`,
  );
await gateway.stop();
await pool.end();
await pg.stop();
rmSync(dataDir, { recursive: true, force: true });
