/**
 * A real PostgreSQL server started from the machine's binaries, for `make run`
 * and for tests. Nothing is downloaded: the binaries are found on PATH or under
 * /usr/lib/postgresql/<version>/bin.
 *
 * PostgreSQL refuses to run as root, so when we are root the cluster is owned by
 * and run as an unprivileged system user (`postgres` when it exists).
 */
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync, chownSync, statSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import pg from "pg";
import { assertPortFree, stopStalePostmaster } from "./stale-postmaster.js";

export interface EmbeddedPostgresOptions {
  /** Folder holding the cluster; created and initialised when empty. */
  dataDir: string;
  /** TCP port on 127.0.0.1; a free one is chosen when omitted. */
  port?: number;
  /** Trade durability for speed (tests only). */
  ephemeral?: boolean;
  /** Told when a server an earlier run left on the folder is stopped. */
  log?: (line: string) => void;
  /** More server settings (`name=value`), after ours: `make profile` loads pg_stat_statements. */
  settings?: string[];
}

export interface EmbeddedPostgres {
  /** URL of the `postgres` database as superuser `postgres`. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Where the PostgreSQL binaries are (PATH first, then the newest /usr/lib/postgresql/<version>/bin). */
export function findBinDir(): string {
  const onPath = (process.env.PATH ?? "").split(":").find((d) => d && existsSync(path.join(d, "initdb")));
  if (onPath) return path.dirname(path.resolve(onPath, "initdb"));
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(path.join(root, v, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(root, versions[0], "bin");
  }
  throw new Error(
    "PostgreSQL binaries (initdb, postgres) were not found on PATH or under /usr/lib/postgresql; install PostgreSQL 15 or set DATABASE_URL",
  );
}

/** The user the server runs as: ourselves, or an unprivileged one when we are root. */
function serverUser(): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ["postgres", "countersign"]) {
    try {
      execFileSync("id", ["-u", name], { stdio: "ignore" });
      return name;
    } catch {
      /* try the next */
    }
  }
  execFileSync("useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "countersign"]);
  return "countersign";
}

function idsOf(user: string): { uid: number; gid: number } {
  const uid = Number(execFileSync("id", ["-u", user]).toString().trim());
  const gid = Number(execFileSync("id", ["-g", user]).toString().trim());
  return { uid, gid };
}

// setpriv execs in place (unlike runuser, which forks), so the child we hold is
// the server itself and our signals reach it directly.
function command(bin: string, args: string[], user: string | undefined): [string, string[]] {
  if (!user) return [bin, args];
  const { uid, gid } = idsOf(user);
  return ["setpriv", [`--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", bin, ...args]];
}

/**
 * As root the server runs as `user`, who must be able to traverse every parent
 * folder of the data folder; a home folder with mode 700 is the usual trap.
 */
function assertReachable(dataDir: string, user: string): void {
  const [cmd, args] = command("/usr/bin/test", ["-w", dataDir], user);
  try {
    execFileSync(cmd, args, { stdio: "ignore" });
  } catch {
    throw new Error(
      `PostgreSQL runs as the unprivileged user '${user}' (it refuses root), who cannot reach ${dataDir}; ` +
        "give its parent folders o+x, choose another folder with COUNTERSIGN_DATA_DIR, or set DATABASE_URL",
    );
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === "object" && addr ? resolve(addr.port) : reject(new Error("no port"))));
    });
  });
}

class ForeignServer extends Error {}

async function waitReady(
  url: string,
  dataDir: string,
  child: ChildProcess,
  deadlineMs: number,
): Promise<void> {
  const until = Date.now() + deadlineMs;
  let lastError: unknown;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`postgres exited with status ${child.exitCode}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      // Whoever answers on the port must be the server of our folder, never one we did not start.
      const { rows } = await client.query<{ data_directory: string }>("show data_directory");
      await client.end();
      if (path.resolve(rows[0]!.data_directory) !== dataDir) {
        throw new ForeignServer(
          `${url} answers with the PostgreSQL server of ${rows[0]!.data_directory}, not of ${dataDir}`,
        );
      }
      return;
    } catch (err) {
      if (err instanceof ForeignServer) throw err;
      lastError = err;
      await client.end().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`postgres did not become ready: ${String(lastError)}`);
}

// Settings for the decision workload (docs/performance.md): every decision appends a few KB of
// rows and WAL. On defaults (128 MB buffers, 1 GB max_wal_size) checkpoints came every 23-40 s at
// 1-2k decisions/s, each followed by a burst of full-page images. Synchronous commit stays on: an
// acknowledged decision is never lost.
const DURABLE_TUNING = [
  "shared_buffers=512MB",
  "wal_buffers=16MB",
  "max_wal_size=8GB",
  "min_wal_size=1GB",
  "checkpoint_timeout=15min",
  "checkpoint_completion_target=0.9",
  // Full-page images after a checkpoint are most of the WAL's bytes; lz4 shrinks them cheaply.
  "wal_compression=lz4",
  // Bundles and explanations are a few KB: lz4 instead of pglz when they are toasted.
  "default_toast_compression=lz4",
];

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const bin = findBinDir();
  const user = serverUser();
  const dataDir = path.resolve(opts.dataDir);
  mkdirSync(dataDir, { recursive: true });
  if (user) {
    const { uid, gid } = idsOf(user);
    if (statSync(dataDir).uid !== uid) chownSync(dataDir, uid, gid);
    assertReachable(dataDir, user);
  }
  if (!existsSync(path.join(dataDir, "PG_VERSION"))) {
    const [cmd, args] = command(
      path.join(bin, "initdb"),
      ["-D", dataDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"],
      user,
    );
    execFileSync(cmd, args, { stdio: "ignore" });
    // Loopback only: the cluster is never reachable from outside this machine.
    writeFileSync(
      path.join(dataDir, "pg_hba.conf"),
      "host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n",
    );
  }
  // A server an earlier run of ours left behind (killed before it could stop it) holds the folder.
  await stopStalePostmaster(dataDir, opts.log);
  if (opts.port) await assertPortFree(opts.port);
  const port = opts.port ?? (await freePort());
  const settings = [
    "listen_addresses=127.0.0.1",
    "unix_socket_directories=",
    "max_connections=300",
    ...(opts.ephemeral ? ["fsync=off", "synchronous_commit=off", "full_page_writes=off"] : DURABLE_TUNING),
    ...(opts.settings ?? []),
  ];
  const [cmd, args] = command(
    path.join(bin, "postgres"),
    ["-D", dataDir, "-p", String(port), ...settings.flatMap((s) => ["-c", s])],
    user,
  );
  const child = spawn(cmd, args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  try {
    await waitReady(url, dataDir, child, 30_000);
  } catch (err) {
    child.kill("SIGKILL");
    throw new Error(`${(err as Error).message}\n${stderr}`, { cause: err });
  }
  return {
    url,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        // SIGINT is PostgreSQL's "fast" shutdown: roll back clients, checkpoint, exit.
        child.kill("SIGINT");
      }),
  };
}
