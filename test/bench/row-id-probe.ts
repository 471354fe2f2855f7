/**
 * What the order of a table's primary keys does to the WAL once a table is
 * large: random (version 4) UUIDs against time-ordered (version 7) ones. Each
 * table is filled with ROWS rows, a checkpoint is taken, and INSERTS more
 * rows are written one per statement; the figures are the WAL bytes and
 * full-page images per inserted row (pg_stat_wal) and the time per insert.
 * Run with `node --conditions=countersign-source --import tsx
 * test/bench/row-id-probe.ts` (ROWS, INSERTS to change the sizes); asserts
 * nothing.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPool, migrate, startEmbeddedPostgres } from "../../core/src/store/index.js";

const rows = Number(process.env.ROWS ?? 2_000_000);
const inserts = Number(process.env.INSERTS ?? 20_000);
const dataDir = mkdtempSync(path.join(os.tmpdir(), "cs-row-id-"));
chmodSync(dataDir, 0o755);
const pg = await startEmbeddedPostgres({ dataDir: path.join(dataDir, "pg") });
const pool = createPool(pg.url, { applicationName: "row-id-probe", max: 1 });
await migrate(pool); // uuid_v7() comes with the migrations
const client = await pool.connect();

for (const kind of ["v4", "v7"] as const) {
  const make = kind === "v4" ? "gen_random_uuid()" : "uuid_v7()";
  await client.query(
    `create table probe_${kind} (id uuid primary key, created_at timestamptz not null default now(), pad text not null)`,
  );
  await client.query(
    `insert into probe_${kind} (id, pad) select ${make}, repeat('x', 100) from generate_series(1, ${rows})`,
  );
}
await client.query("vacuum analyze");
for (const kind of ["v4", "v7"] as const) {
  const make = kind === "v4" ? "gen_random_uuid()" : "uuid_v7()";
  await client.query("checkpoint");
  await client.query("select pg_stat_reset_shared('wal')");
  const started = performance.now();
  for (let i = 0; i < inserts; i++)
    await client.query({
      name: `probe_${kind}`,
      text: `insert into probe_${kind} (id, pad) values (${make}, repeat('x', 100))`,
    });
  const ms = performance.now() - started;
  const wal = (
    await client.query("select wal_bytes::bigint as bytes, wal_fpi::bigint as fpi from pg_stat_wal")
  ).rows[0] as { bytes: string; fpi: string };
  const size = (await client.query(`select pg_relation_size('probe_${kind}_pkey') as n`)).rows[0] as {
    n: string;
  };
  console.log(
    `${kind}: ${rows} rows, primary key ${(Number(size.n) / 2 ** 20).toFixed(0)} MiB; after a checkpoint, per insert: ` +
      `${(Number(wal.bytes) / inserts / 1024).toFixed(2)} KiB of WAL, ${(Number(wal.fpi) / inserts).toFixed(2)} full-page images, ` +
      `${(ms / inserts).toFixed(3)} ms`,
  );
}
client.release();
await pool.end();
await pg.stop();
rmSync(dataDir, { recursive: true, force: true });
