/**
 * A primary and a streaming standby made with PostgreSQL's own tools
 * (pg_basebackup, standby.signal, primary_conninfo, pg_promote), behind one
 * address that follows the primary: HAProxy (Debian's package) in TCP mode,
 * the role CloudNativePG's `-rw` Service plays.
 *
 * Why HAProxy is repointed through its runtime API rather than by a health
 * check: CloudNativePG's `-rw` Service does not probe the instances; its
 * endpoints change when the operator, having promoted a standby, labels that
 * pod the primary. The test does the same steps in the same order (kill,
 * promote, repoint), so the time without a primary is measured over the
 * same sequence, deterministically, without a check interval of ours in it.
 * The backend has two slots; the current primary's is enabled, the standby's
 * is disabled until it is promoted.
 *
 * Synchronous replication is set as a production primary runs it:
 * `synchronous_commit = on` and `synchronous_standby_names` naming the
 * standby, so a commit is acknowledged only once the standby has flushed its
 * WAL. The asynchronous variant leaves `synchronous_standby_names` empty.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { connect } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import {
  createPool,
  freePort,
  migrate,
  startEmbeddedPostgres,
  type EmbeddedPostgres,
  type Pool,
} from "../../core/src/store/index.js";
import { findBinDir } from "../../core/src/store/embedded-postgres.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const STANDBY_NAME = "standby";

interface Instance {
  server: EmbeddedPostgres;
  dataDir: string;
  /** The HAProxy server slot that points at it. */
  slot: "s0" | "s1";
}

export interface ReplicatedPostgres {
  /** URL of the migrated database `countersign` through HAProxy (follows the primary). */
  url: string;
  /** A pool on that address for the test's own reads and writes. */
  pool: Pool;
  /** The standby's direct URL (database `countersign`), or undefined when there is none. */
  standbyUrl(): string | undefined;
  /** SIGKILL of the primary's postmaster and every backend of it, as a node lost at once. */
  killPrimary(): Promise<void>;
  /**
   * `pg_promote()` on the standby (or, after `repoint` moved the address to it first, on the
   * instance the address reaches); resolves once it accepts writes.
   */
  promoteStandby(): Promise<void>;
  /**
   * Moves HAProxy's address to the standby (promoted or not) and drops sessions still held to
   * the old primary.
   */
  repoint(): Promise<void>;
  /** A new standby of the current primary (pg_basebackup), synchronous or not; waits until it streams. */
  addStandby(mode: "sync" | "async"): Promise<void>;
  /** Stops the standby's WAL receiver (no more WAL reaches it), as a lagging or cut-off standby. */
  cutReplication(): Promise<void>;
  /** Waits until the standby has replayed everything the primary wrote so far. */
  caughtUp(): Promise<void>;
  close(): Promise<void>;
}

function serverIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  // startEmbeddedPostgres runs the server as `postgres` (or the `countersign` user it creates) when we are root.
  for (const name of ["postgres", "countersign"]) {
    try {
      return {
        uid: Number(execFileSync("id", ["-u", name]).toString().trim()),
        gid: Number(execFileSync("id", ["-g", name]).toString().trim()),
      };
    } catch {
      /* the next */
    }
  }
  return undefined;
}

function asServerUser(bin: string, args: string[]): void {
  const ids = serverIds();
  if (!ids) execFileSync(bin, args, { stdio: "pipe" });
  else
    execFileSync("setpriv", [`--reuid=${ids.uid}`, `--regid=${ids.gid}`, "--clear-groups", bin, ...args], {
      stdio: "pipe",
    });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const database = (serverUrl: string) => {
  const u = new URL(serverUrl);
  u.pathname = "/countersign";
  return u.toString();
};

/** One command to HAProxy's runtime API (its admin socket); returns what it answered. */
function haproxyCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(socket);
    let out = "";
    s.on("data", (d) => (out += d));
    s.on("error", reject);
    s.on("end", () => resolve(out));
    s.write(`${command}\n`);
  });
}

export async function startReplicatedPostgres(): Promise<ReplicatedPostgres> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "countersign-failover-"));
  chmodSync(dir, 0o755); // the server may run as an unprivileged user
  // pg_basebackup sits beside the real initdb (PATH may hold only links to initdb, pg_ctl, postgres).
  const bin = path.dirname(realpathSync(path.join(findBinDir(), "initdb")));
  // Small buffers: two servers share this machine; synchronous_commit stays on (durable settings).
  const settings = ["shared_buffers=64MB", "max_wal_size=1GB", "min_wal_size=80MB", "wal_keep_size=256MB"];
  let generation = 0;
  const primaryDir = path.join(dir, `pg${generation}`);
  const first = await startEmbeddedPostgres({ dataDir: primaryDir, settings });
  // Streaming replication connects as `postgres` from loopback (the cluster trusts loopback only).
  appendFileSync(path.join(primaryDir, "pg_hba.conf"), "host replication all 127.0.0.1/32 trust\n");
  await query(first.url, "select pg_reload_conf()");
  await query(first.url, "create database countersign");
  let primary: Instance = { server: first, dataDir: primaryDir, slot: "s0" };
  let standby: Instance | undefined;

  // HAProxy: one TCP frontend, one backend with two slots, the runtime API on a socket.
  const socket = path.join(dir, "haproxy.sock");
  const port = await freePort();
  const placeholder = await freePort();
  writeFileSync(
    path.join(dir, "haproxy.cfg"),
    [
      "global",
      `  stats socket ${socket} mode 600 level admin`,
      "  maxconn 2000",
      "defaults",
      "  mode tcp",
      "  timeout connect 2s",
      "  timeout client 1h",
      "  timeout server 1h",
      // A connection to a dead server fails at once, as to a Service endpoint that is gone (HAProxy
      // would otherwise retry it three times, a second apart).
      "  retries 0",
      "frontend rw",
      `  bind 127.0.0.1:${port}`,
      "  default_backend primary",
      "backend primary",
      `  server s0 127.0.0.1:${first.port}`,
      `  server s1 127.0.0.1:${placeholder} disabled`,
      "",
    ].join("\n"),
  );
  // Debian installs it in /usr/sbin, which a non-root PATH may lack.
  const haproxyBin = existsSync("/usr/sbin/haproxy") ? "/usr/sbin/haproxy" : "haproxy";
  const haproxy: ChildProcess = spawn(haproxyBin, ["-db", "-f", path.join(dir, "haproxy.cfg")], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let haproxyErr = "";
  haproxy.stderr?.on("data", (d: Buffer) => (haproxyErr = (haproxyErr + d.toString()).slice(-2000)));
  const url = `postgres://postgres@127.0.0.1:${port}/countersign`;
  for (let i = 0; ; i++) {
    try {
      await query(url, "select 1");
      break;
    } catch (err) {
      if (i > 100 || haproxy.exitCode !== null)
        throw new Error(`haproxy did not start: ${haproxyErr}`, { cause: err });
      await sleep(100);
    }
  }
  const pool = createPool(url, { applicationName: "failover-test", max: 10 });
  await migrate(pool);

  const setSynchronous = async (server: EmbeddedPostgres, names: string) => {
    await query(server.url, `alter system set synchronous_standby_names = '${names}'`);
    await query(server.url, "select pg_reload_conf()");
  };

  const api: ReplicatedPostgres = {
    url,
    pool,
    standbyUrl: () => (standby ? database(standby.server.url) : undefined),
    async addStandby(standbyMode) {
      generation++;
      const dataDir = path.join(dir, `pg${generation}`);
      mkdirSync(dataDir, { mode: 0o700 });
      const ids = serverIds();
      if (ids) execFileSync("chown", [`${ids.uid}:${ids.gid}`, dataDir]);
      // A base backup streaming the WAL it needs (-X stream), then the two files that make it a standby.
      asServerUser(path.join(bin, "pg_basebackup"), [
        "-D",
        dataDir,
        "-h",
        "127.0.0.1",
        "-p",
        String(primary.server.port),
        "-U",
        "postgres",
        "-X",
        "stream",
        "-c",
        "fast",
      ]);
      writeFileSync(path.join(dataDir, "standby.signal"), "");
      // postgresql.auto.conf (not -c) so that cutReplication can change it with a reload.
      appendFileSync(
        path.join(dataDir, "postgresql.auto.conf"),
        `primary_conninfo = 'host=127.0.0.1 port=${primary.server.port} user=postgres application_name=${STANDBY_NAME}'\n` +
          "synchronous_standby_names = ''\n",
      );
      const server = await startEmbeddedPostgres({ dataDir, settings });
      const slot = primary.slot === "s0" ? "s1" : "s0";
      standby = { server, dataDir, slot };
      await haproxyCommand(socket, `set server primary/${slot} addr 127.0.0.1 port ${server.port}`);
      // Streaming (and, when synchronous, counted as the synchronous standby) before it is relied on.
      for (let i = 0; ; i++) {
        const rows = await query<{ state: string }>(
          primary.server.url,
          `select state from pg_stat_replication where application_name = '${STANDBY_NAME}'`,
        );
        if (rows[0]?.state === "streaming") break;
        if (i > 300) throw new Error("the standby did not start streaming");
        await sleep(100);
      }
      await setSynchronous(primary.server, standbyMode === "sync" ? STANDBY_NAME : "");
      if (standbyMode === "sync")
        for (let i = 0; ; i++) {
          const rows = await query<{ sync_state: string }>(
            primary.server.url,
            `select sync_state from pg_stat_replication where application_name = '${STANDBY_NAME}'`,
          );
          if (rows[0]?.sync_state === "sync") break;
          if (i > 300) throw new Error("the standby did not become synchronous");
          await sleep(100);
        }
    },
    async cutReplication() {
      if (!standby) throw new Error("no standby");
      appendFileSync(path.join(standby.dataDir, "postgresql.auto.conf"), "primary_conninfo = ''\n");
      await query(standby.server.url, "select pg_reload_conf()");
      for (let i = 0; ; i++) {
        const rows = await query(standby.server.url, "select 1 from pg_stat_wal_receiver");
        if (rows.length === 0) break;
        if (i > 300) throw new Error("the WAL receiver did not stop");
        await sleep(50);
      }
    },
    async caughtUp() {
      if (!standby) throw new Error("no standby");
      const [current] = await query<{ lsn: string }>(
        primary.server.url,
        "select pg_current_wal_lsn() as lsn",
      );
      for (let i = 0; ; i++) {
        const [replay] = await query<{ behind: boolean }>(
          standby.server.url,
          `select pg_last_wal_replay_lsn() < '${current!.lsn}'::pg_lsn as behind`,
        );
        if (!replay!.behind) return;
        if (i > 300) throw new Error("the standby did not catch up");
        await sleep(50);
      }
    },
    async killPrimary() {
      const pid = Number(readFileSync(path.join(primary.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
      let children: number[] = [];
      try {
        children = execFileSync("pgrep", ["-P", String(pid)])
          .toString()
          .trim()
          .split("\n")
          .map(Number);
      } catch {
        /* none */
      }
      for (const p of [pid, ...children])
        try {
          process.kill(p, "SIGKILL");
        } catch {
          /* already gone */
        }
      while ([pid, ...children].some(alive)) await sleep(10);
    },
    async promoteStandby() {
      // The standby, or (repointed first, as in a switchover's race) the instance the address reaches.
      const target = standby ?? primary;
      await query(target.server.url, "select pg_promote(true, 60)");
      // The new primary runs alone until a standby is added: no synchronous names to wait for.
      await setSynchronous(target.server, "");
    },
    async repoint() {
      if (!standby) throw new Error("no standby");
      const old = primary;
      await haproxyCommand(socket, `disable server primary/${old.slot}`);
      await haproxyCommand(socket, `shutdown sessions server primary/${old.slot}`);
      await haproxyCommand(socket, `enable server primary/${standby.slot}`);
      primary = standby;
      standby = undefined;
      // The old primary's data folder is kept until close (a real installation would rebuild it as a standby).
      void old;
    },
    async close() {
      await pool.end().catch(() => undefined);
      if (haproxy.exitCode === null) {
        const exited = new Promise((r) => haproxy.once("exit", r));
        haproxy.kill("SIGTERM");
        await exited;
      }
      await Promise.all([primary.server.stop(), standby?.server.stop()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return { ...api };
}
