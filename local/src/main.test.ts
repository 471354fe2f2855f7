/**
 * `make run` as a user runs it: a real process, an embedded PostgreSQL in a data
 * folder, both servers ready, Ctrl-C (SIGINT) stops everything, a second start
 * reuses the data, DATABASE_URL switches to an existing server, and a bad
 * setting exits with status 2 naming every bad setting.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "@countersign/core/store";
import { createTestDatabase } from "../../test/setup/database.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dataDir = mkdtempSync(path.join(os.tmpdir(), "cs-local-"));
chmodSync(dataDir, 0o755); // as root, PostgreSQL runs as an unprivileged user who must reach it
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Run {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function launch(env: Record<string, string>): Run {
  const child = spawn(process.execPath, ["--conditions=countersign-source", "--import", "tsx", "local/src/main.ts"], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root", ...env },
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function until(cond: () => boolean, run: Run, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (run.child.exitCode !== null) throw new Error(`exited ${run.child.exitCode}: ${run.stderr()}`);
    if (Date.now() > end) throw new Error(`timed out; stdout: ${run.stdout()} stderr: ${run.stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function startAndCheck(env: Record<string, string>) {
  const apiPort = await freePort();
  const gatewayPort = await freePort();
  const run = launch({ ...env, COUNTERSIGN_API_PORT: String(apiPort), COUNTERSIGN_GATEWAY_PORT: String(gatewayPort) });
  await until(() => run.stdout().includes("Countersign is running."), run);
  for (const port of [apiPort, gatewayPort]) {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(res.status).toBe(200);
  }
  expect(run.stdout()).toContain(`http://127.0.0.1:${apiPort}/api/v1`);
  expect(run.stdout()).toContain(`http://127.0.0.1:${gatewayPort}`);
  return { run, apiPort, gatewayPort };
}

async function stop(run: Run) {
  run.child.kill("SIGINT");
  expect(await run.exited).toBe(0);
  expect(run.stdout()).toContain("Countersign stopped.");
}

describe("make run (local/src/main.ts)", () => {
  it("starts an embedded PostgreSQL and both servers, stops on Ctrl-C, and reuses the data", { timeout: 120_000 }, async () => {
    const env = { COUNTERSIGN_DATA_DIR: dataDir };
    const first = await startAndCheck(env);
    expect(first.run.stdout()).toMatch(/migrations applied now: [1-9]/);
    await stop(first.run);
    // The PostgreSQL server stopped with us: it removes its pid file on a clean stop.
    expect(existsSync(path.join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
    await expect(fetch(`http://127.0.0.1:${first.apiPort}/healthz`)).rejects.toThrow();

    const second = await startAndCheck(env);
    expect(second.run.stdout()).toContain("migrations applied now: 0");
    await stop(second.run);
  });

  it("uses DATABASE_URL instead of an embedded server", { timeout: 120_000 }, async () => {
    const db = await createTestDatabase({ migrate: false });
    const otherDir = mkdtempSync(path.join(os.tmpdir(), "cs-local-url-"));
    try {
      const { run } = await startAndCheck({ DATABASE_URL: db.url, COUNTERSIGN_DATA_DIR: otherDir });
      expect(run.stdout()).toContain("PostgreSQL at 127.0.0.1");
      const { rows } = await db.pool.query("select count(*)::int as n from schema_migrations");
      expect(rows[0].n).toBeGreaterThan(0);
      await stop(run);
      expect(existsSync(path.join(otherDir, "postgres"))).toBe(false);
    } finally {
      await db.drop();
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it("exits with status 2 naming every bad setting, and starts nothing", async () => {
    const run = launch({
      COUNTERSIGN_DATA_DIR: dataDir,
      COUNTERSIGN_API_PORT: "eighty",
      COUNTERSIGN_LOG_LEVEL: "loud",
      DATABASE_URL: "mysql://nope",
    });
    expect(await run.exited).toBe(2);
    for (const name of ["COUNTERSIGN_API_PORT", "COUNTERSIGN_LOG_LEVEL", "DATABASE_URL"]) expect(run.stderr()).toContain(name);
    expect(run.stdout()).not.toContain("running");
  });
});
