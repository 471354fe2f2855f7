/**
 * `make run` as a user runs it: a real process, an embedded PostgreSQL in a data
 * folder, both servers ready, Ctrl-C (SIGINT) stops everything, a second start
 * reuses the data, DATABASE_URL switches to an existing server, and a bad
 * setting exits with status 2 naming every bad setting.
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import pg from "pg";
import { freePort, startEmbeddedPostgres } from "@countersign/core/store";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createTestDatabase } from "../../test/setup/database.js";
import { Browser } from "../../test/fixtures/cloud-api.js";
import { verifyBundle } from "@countersign/protocol/evidence";
import { createTestCa, startReceiver } from "../../test/fixtures/https-receiver.js";
import { simpleTool, startMcpServer } from "../../test/fixtures/mcp-server.js";

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

// A run a failed test did not stop is stopped here (Ctrl-C, as a user would), so none outlives the file.
const launched = new Set<Run>();
afterEach(async () => {
  for (const run of launched) {
    if (run.child.exitCode === null && run.child.signalCode === null) {
      run.child.kill("SIGINT");
      await run.exited;
    }
  }
  launched.clear();
});

function launch(env: Record<string, string>): Run {
  const child = spawn(
    process.execPath,
    ["--conditions=countersign-source", "--import", "tsx", "local/src/main.ts"],
    {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root", ...env },
    },
  );
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const run = { child, stdout: () => out, stderr: () => err, exited };
  launched.add(run);
  return run;
}

/** The processes whose command line names `text` (a run's PostgreSQL names its data folder). */
function processesNaming(text: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(text)) found.push(Number(entry));
    } catch {
      // The process ended while the folder was read.
    }
  }
  return found;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(cond: () => boolean, run: Run, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (run.child.exitCode !== null) {
      throw new Error(`exited ${run.child.exitCode}; stdout: ${run.stdout()} stderr: ${run.stderr()}`);
    }
    if (Date.now() > end) throw new Error(`timed out; stdout: ${run.stdout()} stderr: ${run.stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// A port freePort found free can be taken before the run listens on it (by another test's listener
// or by an outgoing connection's local port, under a loaded CI). The run then says so and stops
// everything it started; only that failure is retried, with new ports.
const PORT_TAKEN = /is already in use by another program \(COUNTERSIGN_[A-Z_]+_PORT\)/;

async function startAndCheck(env: Record<string, string>) {
  let output = "";
  for (let attempt = 1; ; attempt++) {
    const started = await startOnce(env).catch((err: Error) => err);
    if (!(started instanceof Error)) {
      // Every attempt's output: a first attempt may have done the part a test looks for.
      return { ...started, output: () => output + started.run.stdout() };
    }
    if (attempt === 3 || !PORT_TAKEN.test(started.message)) throw started;
    output += started.message;
  }
}

async function startOnce(env: Record<string, string>) {
  const apiPort = await freePort();
  const gatewayPort = await freePort();
  const upstreamPort = await freePort();
  const smtpPort = await freePort();
  const inboxPort = await freePort();
  const run = launch({
    COUNTERSIGN_SMTP_PORT: String(smtpPort),
    COUNTERSIGN_INBOX_PORT: String(inboxPort),
    ...env,
    COUNTERSIGN_API_PORT: String(apiPort),
    COUNTERSIGN_GATEWAY_PORT: String(gatewayPort),
    COUNTERSIGN_SAMPLE_UPSTREAM_PORT: String(upstreamPort),
  });
  await until(() => run.stdout().includes("Countersign is running."), run);
  for (const port of [apiPort, gatewayPort]) {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(res.status).toBe(200);
  }
  expect(run.stdout()).toContain(`http://127.0.0.1:${apiPort}/api/v1`);
  expect(run.stdout()).toContain(`http://127.0.0.1:${gatewayPort}`);
  // The dashboard on the api's origin, and the inbox where its e-mails are read, both printed.
  expect(run.stdout()).toContain(`Dashboard: http://127.0.0.1:${apiPort}/`);
  expect(run.stdout()).toContain(`Inbox:     http://127.0.0.1:${inboxPort}/`);
  for (const page of ["/", "/verify-email"]) {
    const res = await fetch(`http://127.0.0.1:${apiPort}${page}`);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('<div id="root">');
    // The dashboard is told the Gateway's address, which it shows with the snippets that connect an agent.
    expect(html).toContain(
      `<meta name="countersign-gateway-url" content="http://127.0.0.1:${gatewayPort}" />`,
    );
  }
  return { run, apiPort, gatewayPort, inboxPort };
}

async function stop(run: Run) {
  run.child.kill("SIGINT");
  expect(await run.exited).toBe(0);
  expect(run.stdout()).toContain("Countersign stopped.");
}

describe("make run (local/src/main.ts)", () => {
  it(
    "starts an embedded PostgreSQL and both servers, stops on Ctrl-C, and reuses the data",
    { timeout: 120_000 },
    async () => {
      const env = { COUNTERSIGN_DATA_DIR: dataDir };
      const first = await startAndCheck(env);
      expect(first.run.stdout()).toMatch(/migrations applied now: [1-9]/);
      // A sign-up's verification mail arrives over SMTP in the inbox, its link on the dashboard's origin.
      const email = "newcomer@example.test";
      const up = await fetch(`http://127.0.0.1:${first.apiPort}/api/v1/auth/signup`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password: "correct horse battery staple" }),
      });
      expect(up.status).toBe(202);
      const link = new RegExp(`http://127\\.0\\.0\\.1:${first.apiPort}/verify-email#token=[A-Za-z0-9_-]+`);
      let inbox = "";
      for (let i = 0; i < 100 && !link.test(inbox); i++) {
        inbox = await (await fetch(`http://127.0.0.1:${first.inboxPort}/`)).text();
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(inbox).toMatch(link);
      expect(inbox).toContain(`to ${email}`);
      await stop(first.run);
      // The PostgreSQL server stopped with us: it removes its pid file on a clean stop.
      expect(existsSync(path.join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
      await expect(fetch(`http://127.0.0.1:${first.apiPort}/healthz`)).rejects.toThrow();

      const second = await startAndCheck(env);
      expect(second.run.stdout()).toContain("migrations applied now: 0");
      await stop(second.run);
    },
  );

  it(
    "seeds a demo organization, writes .data/demo.json and prints a curl that gets an authorization",
    { timeout: 120_000 },
    async () => {
      const demoDir = mkdtempSync(path.join(os.tmpdir(), "cs-local-demo-"));
      chmodSync(demoDir, 0o755);
      const db = await createTestDatabase({ migrate: false });
      try {
        const env = { DATABASE_URL: db.url, COUNTERSIGN_DATA_DIR: demoDir };
        const first = await startAndCheck(env);
        const file = path.join(demoDir, "demo.json");
        expect(statSync(file).mode & 0o777).toBe(0o600);
        const demo = JSON.parse(readFileSync(file, "utf8"));
        for (const member of [
          "api_url",
          "gateway_url",
          "org_id",
          "gateway_key",
          "decision_only_tool",
          "allowed_arguments",
          "approval_arguments",
          "mcp_tool",
          "mcp_allowed_arguments",
          "owner_email",
          "owner_password",
        ]) {
          expect(demo[member], member).toBeDefined();
        }
        expect(demo.gateway_url).toBe(`http://127.0.0.1:${first.gatewayPort}`);
        expect(first.run.stdout()).toContain("Demo organization created");
        // The printed command, run as printed, gets an authorization.
        const curl = first.run
          .stdout()
          .split("\n")
          .find((l) => l.trim().startsWith("curl "))!
          .trim();
        const out = execFileSync("sh", ["-c", curl], { encoding: "utf8" });
        expect(JSON.parse(out)).toMatchObject({ allowed: true, status: "authorized" });
        const authorize = (args: unknown, gatewayUrl = demo.gateway_url) =>
          fetch(`${gatewayUrl}/v1/authorize`, {
            method: "POST",
            headers: { authorization: `Bearer ${demo.gateway_key}`, "content-type": "application/json" },
            body: JSON.stringify({ tool: demo.decision_only_tool, arguments: args }),
          }).then((r) => r.json());
        expect(await authorize(demo.approval_arguments)).toMatchObject({
          allowed: false,
          status: "approval_pending",
        });
        // The Gateway-enforced tool runs on the sample upstream, through /mcp with the MCP SDK client.
        const agent = new Client({ name: "demo-agent", version: "1.0.0" });
        await agent.connect(
          new StreamableHTTPClientTransport(new URL(`${demo.gateway_url}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${demo.gateway_key}` } },
          }),
        );
        expect((await agent.listTools()).tools.map((t) => t.name)).toEqual([demo.mcp_tool]);
        const ran = (await agent.callTool({
          name: demo.mcp_tool,
          arguments: demo.mcp_allowed_arguments,
        })) as CallToolResult;
        await agent.close();
        expect(ran.isError).toBeFalsy();
        expect(JSON.stringify(ran.content)).toContain("Refunded 30 EUR");
        expect((ran._meta as { service: { receipt_id: string } }).service.receipt_id).toMatch(
          /^[0-9a-f-]{36}$/,
        );
        // The sample upstream is service-aware: the receipt carries its trusted attestation of the result.
        const stored = await db.pool.query("select bundle from receipts where id = $1", [
          (ran._meta as { service: { receipt_id: string } }).service.receipt_id,
        ]);
        const bundle = JSON.parse(stored.rows[0].bundle.toString("utf8"));
        const attestations = bundle.objects.filter(
          (o: { body: { type: string } }) => o.body.type === "ATTESTATION",
        );
        expect(attestations).toHaveLength(1);
        expect(bundle.receipt.body.payload.trusted_attesters).toEqual([attestations[0].body.actor]);
        const verified = verifyBundle(bundle);
        expect(verified.valid).toBe(true);
        expect(verified.warnings.map((w) => w.code)).toEqual(["TRUST_NOT_PINNED"]);
        expect(verified.notes.some((n) => n.startsWith("trusted attestation"))).toBe(true);
        // The owner can sign in with the printed credentials.
        const signin = await fetch(`${demo.api_url}/auth/signin`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: demo.owner_email, password: demo.owner_password }),
        });
        expect(signin.status).toBe(200);
        await stop(first.run);

        const second = await startAndCheck(env);
        expect(second.run.stdout()).toContain("Demo organization reused");
        const again = JSON.parse(readFileSync(file, "utf8"));
        expect(again.gateway_key).toBe(demo.gateway_key);
        expect(again.gateway_url).toBe(`http://127.0.0.1:${second.gatewayPort}`);
        expect(await authorize(demo.allowed_arguments, again.gateway_url)).toMatchObject({ allowed: true });
        // The sample upstream moved to another port: the demo tool follows it.
        const agent2 = new Client({ name: "demo-agent", version: "1.0.0" });
        await agent2.connect(
          new StreamableHTTPClientTransport(new URL(`${again.gateway_url}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${demo.gateway_key}` } },
          }),
        );
        const ranAgain = (await agent2.callTool({
          name: demo.mcp_tool,
          arguments: demo.mcp_allowed_arguments,
        })) as CallToolResult;
        await agent2.close();
        expect(ranAgain.isError).toBeFalsy();
        await stop(second.run);
        const { rows } = await db.pool.query("select count(*)::int as n from organizations");
        expect(rows[0].n).toBe(1);
      } finally {
        await db.drop();
        rmSync(demoDir, { recursive: true, force: true });
      }
    },
  );

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

  it(
    "trusts the CAs named by COUNTERSIGN_WEBHOOK_CA_FILE for webhook receivers and COUNTERSIGN_UPSTREAM_CA_FILE for MCP servers on this machine",
    { timeout: 120_000 },
    async () => {
      const db = await createTestDatabase({ migrate: false });
      const otherDir = mkdtempSync(path.join(os.tmpdir(), "cs-local-ca-"));
      chmodSync(otherDir, 0o755);
      const ca = createTestCa();
      const rx = await startReceiver(ca);
      const mcp = await startMcpServer(ca, { list: () => ({ tools: [simpleTool("refund")] }) });
      try {
        const { run, apiPort } = await startAndCheck({
          DATABASE_URL: db.url,
          COUNTERSIGN_DATA_DIR: otherDir,
          COUNTERSIGN_WEBHOOK_CA_FILE: ca.caFile,
          COUNTERSIGN_UPSTREAM_CA_FILE: ca.caFile,
        });
        const demo = JSON.parse(readFileSync(path.join(otherDir, "demo.json"), "utf8"));
        const base = `http://127.0.0.1:${apiPort}`;
        const owner = new Browser(base, "127.0.0.1", base);
        expect(
          (await owner.post("/auth/signin", { email: demo.owner_email, password: demo.owner_password }))
            .status,
        ).toBe(200);
        const created = await owner.post(`/orgs/${demo.org_id}/webhooks`, {
          url: `${rx.url}/local`,
          event_types: ["action.denied"],
        });
        expect(created.status).toBe(201);
        const hook = created.body.webhook.id as string;
        expect((await owner.post(`/orgs/${demo.org_id}/webhooks/${hook}/test`)).status).toBe(202);
        // The worker polls every second; the attempt is logged when it starts and when it ends, whatever its outcome.
        let delivery:
          | {
              state: string;
              attempts: { status_code: number | null; error: string | null; finished_at: string | null }[];
            }
          | undefined;
        for (
          const end = Date.now() + 30_000;
          Date.now() < end;
          await new Promise((r) => setTimeout(r, 200))
        ) {
          delivery = (await owner.get(`/orgs/${demo.org_id}/webhooks/${hook}/deliveries`)).body.items[0];
          if (delivery?.attempts[0]?.finished_at) break;
        }
        expect(delivery?.attempts[0], JSON.stringify(delivery)).toMatchObject({
          status_code: 200,
          error: null,
        });
        expect(delivery?.state).toBe("delivered");
        expect(rx.requests.filter((r) => r.path === "/local")).toHaveLength(1);
        // Discovery reaches an MCP server whose certificate chains to the upstream CA.
        const server = await owner.post(`/orgs/${demo.org_id}/mcp-servers`, {
          kind: "mcp",
          name: "private-ca",
          url: mcp.url,
        });
        expect(server.status, JSON.stringify(server.body)).toBe(201);
        const found = await owner.post(
          `/orgs/${demo.org_id}/mcp-servers/${server.body.mcp_server.id}/discover`,
        );
        expect(found.status, JSON.stringify(found.body)).toBe(200);
        expect(found.body.tools.map((t: { name: string }) => t.name)).toEqual(["refund"]);
        await stop(run);
      } finally {
        await mcp.close();
        await rx.close();
        ca.dispose();
        await db.drop();
        rmSync(otherDir, { recursive: true, force: true });
      }
    },
  );

  it(
    "recovers from its own crash: the PostgreSQL server a killed run left behind is stopped and replaced",
    { timeout: 180_000 },
    async () => {
      const crashDir = mkdtempSync(path.join(os.tmpdir(), "cs-local-crash-"));
      chmodSync(crashDir, 0o755);
      const lockFile = path.join(crashDir, "postgres", "postmaster.pid");
      const postmaster = () => Number(readFileSync(lockFile, "utf8").split("\n")[0]);
      try {
        // With a fixed port the next run would reach the orphan on it; with a free port each time it
        // would find the folder locked. Both, one after the other.
        for (const port of [String(await freePort()), "0"]) {
          const env = { COUNTERSIGN_DATA_DIR: crashDir, COUNTERSIGN_POSTGRES_PORT: port };
          const crashed = await startAndCheck(env);
          const orphan = postmaster();
          crashed.run.child.kill("SIGKILL");
          await crashed.run.exited;
          expect(running(orphan)).toBe(true); // left behind, as a crash leaves it

          const next = await startAndCheck(env);
          expect(running(orphan)).toBe(false);
          expect(postmaster()).not.toBe(orphan);
          expect(next.output()).toContain(`stopping the PostgreSQL server (pid ${orphan})`);
          await stop(next.run);
          expect(existsSync(lockFile)).toBe(false);
        }
      } finally {
        if (existsSync(lockFile) && running(postmaster())) process.kill(postmaster(), "SIGKILL");
        rmSync(crashDir, { recursive: true, force: true });
      }
    },
  );

  it(
    "never uses a PostgreSQL it did not start: another server on its port is refused with a clear message",
    { timeout: 120_000 },
    async () => {
      const foreignDir = mkdtempSync(path.join(os.tmpdir(), "cs-local-foreign-"));
      const ownDir = mkdtempSync(path.join(os.tmpdir(), "cs-local-own-"));
      chmodSync(foreignDir, 0o755);
      chmodSync(ownDir, 0o755);
      const foreign = await startEmbeddedPostgres({
        dataDir: path.join(foreignDir, "data"),
        ephemeral: true,
      });
      try {
        const run = launch({ COUNTERSIGN_DATA_DIR: ownDir, COUNTERSIGN_POSTGRES_PORT: String(foreign.port) });
        for (
          let i = 0;
          i < 600 && run.child.exitCode === null && !run.stdout().includes("Countersign is running.");
          i++
        )
          await new Promise((r) => setTimeout(r, 100));
        expect(run.stdout()).not.toContain("Countersign is running.");
        expect(await run.exited).toBe(1);
        expect(run.stderr()).toBe(
          `cannot start the embedded PostgreSQL: 127.0.0.1:${foreign.port} (COUNTERSIGN_POSTGRES_PORT) is already in use by another program: ` +
            "stop that program or choose another port\n",
        );
        expect(run.stdout()).not.toContain("Countersign is running.");
        // The foreign server is untouched and got nothing of ours; ours is not left running.
        const client = new pg.Client({ connectionString: foreign.url });
        await client.connect();
        const { rows } = await client.query("select datname from pg_database where datname = 'countersign'");
        await client.end();
        expect(rows).toHaveLength(0);
        expect(existsSync(path.join(ownDir, "postgres", "postmaster.pid"))).toBe(false);
      } finally {
        await foreign.stop();
        rmSync(foreignDir, { recursive: true, force: true });
        rmSync(ownDir, { recursive: true, force: true });
      }
    },
  );

  it(
    "each port another program holds stops the start with one line naming its setting, and leaves nothing running",
    { timeout: 300_000 },
    async () => {
      const ownDir = mkdtempSync(path.join(os.tmpdir(), "cs-local-taken-"));
      chmodSync(ownDir, 0o755);
      const settings = [
        "COUNTERSIGN_POSTGRES_PORT",
        "COUNTERSIGN_SMTP_PORT",
        "COUNTERSIGN_INBOX_PORT",
        "COUNTERSIGN_SAMPLE_UPSTREAM_PORT",
        "COUNTERSIGN_API_PORT",
        "COUNTERSIGN_GATEWAY_PORT",
      ];
      try {
        for (const setting of settings) {
          // Held by this test while the run starts: the port the setting names.
          const holder = createServer();
          await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
          const taken = (holder.address() as AddressInfo).port;
          try {
            const others = Object.fromEntries(settings.map((name) => [name, "0"]));
            const run = launch({ COUNTERSIGN_DATA_DIR: ownDir, ...others, [setting]: String(taken) });
            expect(await run.exited, setting).toBe(1);
            const prefix =
              setting === "COUNTERSIGN_POSTGRES_PORT"
                ? "cannot start the embedded PostgreSQL"
                : "cannot start Countersign";
            expect(run.stderr(), setting).toBe(
              `${prefix}: 127.0.0.1:${taken} (${setting}) is already in use by another program: ` +
                "stop that program or choose another port\n",
            );
            expect(run.stdout()).not.toContain("Countersign is running.");
            // Nothing it started outlives it: no PostgreSQL of its data folder (its command line names
            // the folder), no lock file, and none of its ports still listened on.
            expect(processesNaming(ownDir), setting).toEqual([]);
            expect(existsSync(path.join(ownDir, "postgres", "postmaster.pid")), setting).toBe(false);
          } finally {
            await new Promise<void>((resolve) => holder.close(() => resolve()));
          }
        }
      } finally {
        rmSync(ownDir, { recursive: true, force: true });
      }
    },
  );

  it("exits with status 2 naming every bad setting, and starts nothing", async () => {
    const run = launch({
      COUNTERSIGN_DATA_DIR: dataDir,
      COUNTERSIGN_API_PORT: "eighty",
      COUNTERSIGN_LOG_LEVEL: "loud",
      DATABASE_URL: "mysql://nope",
    });
    expect(await run.exited).toBe(2);
    for (const name of ["COUNTERSIGN_API_PORT", "COUNTERSIGN_LOG_LEVEL", "DATABASE_URL"])
      expect(run.stderr()).toContain(name);
    expect(run.stdout()).not.toContain("running");
  });
});
