import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Pool } from "@countersign/core/store";
import { seedDemo, type DemoSeed } from "./seed.js";

/** `.data/demo.json`: the demo's addresses and credentials for scripts and tutorials (issue 5). */
export interface DemoFile extends DemoSeed {
  api_url: string;
  gateway_url: string;
}

/**
 * The demo organization, seeded on the first run and reused afterwards (as
 * long as its organization still exists in the database); the file is
 * rewritten with this run's addresses. Mode 600: it holds a key and a password.
 */
export async function ensureDemo(pool: Pool, dataDir: string, keyHashSecret: Buffer, urls: { api_url: string; gateway_url: string }): Promise<{ demo: DemoFile; file: string; created: boolean }> {
  const file = path.join(dataDir, "demo.json");
  let seed: DemoSeed | undefined;
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, "utf8")) as DemoSeed;
    const { rows } = await pool.query("select 1 from organizations where id = $1", [stored.org_id]);
    if (rows.length === 1) seed = stored;
  }
  const created = seed === undefined;
  seed ??= await seedDemo(pool, keyHashSecret);
  const demo: DemoFile = { ...seed, ...urls };
  writeFileSync(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return { demo, file, created };
}

/** The command the demo prints: one authorization, copy-paste ready. */
export function demoCurl(demo: DemoFile): string {
  const body = JSON.stringify({ tool: demo.decision_only_tool, arguments: demo.allowed_arguments, idempotency_key: "demo-refund-ord_1001" });
  return `curl -s -X POST ${demo.gateway_url}/v1/authorize -H 'Authorization: Bearer ${demo.gateway_key}' -H 'Content-Type: application/json' -d '${body}'`;
}
