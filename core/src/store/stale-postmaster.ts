/**
 * An embedded PostgreSQL belongs to its data folder. A process that started
 * one and was killed (SIGKILL, OOM) leaves it running, holding the folder's
 * lock file and its port; the next start stops it, but only after checking
 * that the pid in the lock file really is a postmaster of that folder, and
 * never uses a server it did not start.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone we may not signal.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The command line of `pid` (Linux /proc), or undefined when it cannot be read. */
function commandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return undefined;
  }
}

/** Whether `pid` is a postgres server started on exactly `dataDir` (`postgres -D <dataDir> ...`). */
export function isPostmasterOf(pid: number, dataDir: string): boolean {
  const argv = commandLine(pid);
  if (!argv?.length || path.basename(argv[0]!) !== "postgres") return false;
  const d = argv.indexOf("-D");
  return d >= 0 && argv[d + 1] !== undefined && path.resolve(argv[d + 1]!) === path.resolve(dataDir);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function gone(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > until) return false;
    await sleep(50);
  }
  return true;
}

/**
 * Stops the postmaster a previous run left on `dataDir`, as PostgreSQL's fast
 * shutdown (SIGINT), then immediate (SIGQUIT) if it does not end. A lock
 * file whose pid is now some other program is removed (PostgreSQL would
 * refuse to start while that pid lives). Answers the pid it stopped.
 */
export async function stopStalePostmaster(
  dataDir: string,
  log: (line: string) => void = () => undefined,
): Promise<number | undefined> {
  const lockFile = path.join(dataDir, "postmaster.pid");
  if (!existsSync(lockFile)) return undefined;
  const pid = Number(readFileSync(lockFile, "utf8").split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return undefined;
  if (!isPostmasterOf(pid, dataDir)) {
    rmSync(lockFile, { force: true });
    return undefined;
  }
  log(`stopping the PostgreSQL server (pid ${pid}) an earlier run left in ${dataDir}`);
  process.kill(pid, "SIGINT");
  if (await gone(pid, 30_000)) return pid;
  process.kill(pid, "SIGQUIT");
  if (await gone(pid, 10_000)) return pid;
  throw new Error(
    `the PostgreSQL server (pid ${pid}) an earlier run left in ${dataDir} did not stop; stop it and start again`,
  );
}

/** Refuses a port some other program listens on: connecting there would reach a server that is not ours. */
export async function assertPortFree(port: number): Promise<void> {
  const free = await new Promise<boolean>((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
  if (!free) {
    // code, address and port as a listen error has them, so a caller names the setting that chose the port.
    throw Object.assign(
      new Error(
        `127.0.0.1:${port} is already in use by another program (a PostgreSQL server not started from this data folder?); ` +
          "the embedded PostgreSQL needs a free port: stop that program or choose another port, or set DATABASE_URL to use that server",
      ),
      { code: "EADDRINUSE", address: "127.0.0.1", port },
    );
  }
}
