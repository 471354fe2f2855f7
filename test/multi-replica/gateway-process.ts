/**
 * A Gateway replica as a real process (gateway/src/main.ts, the container's
 * entry point) on a given database, for tests that need several at once.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { fileURLToPath } from "node:url";
import { onFreePort } from "../fixtures/free-port.js";
import type { JsonBody } from "../fixtures/json.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

export interface GatewayProcess {
  url: string;
  output: () => string;
  /** Still running (it neither exited nor was killed). */
  alive(): boolean;
  stop(): Promise<void>;
  /** SIGKILL: no drain, no cleanup, as a crashed pod. */
  kill(): Promise<void>;
  /** The process id (the bench reads its CPU time). */
  pid: number;
}

export async function startGatewayProcess(opts: {
  databaseUrl: string;
  keyHashSecret: Buffer;
  signingKey: Uint8Array;
  env?: Record<string, string>;
  /** Run the built JavaScript (gateway/dist, as a container does) instead of the sources through tsx. */
  built?: boolean;
  /** With `built`: the folder holding gateway/dist (an image's /app), else the repository. */
  cwd?: string;
  /** Extra node options before the entry point (`make profile`: --cpu-prof). */
  nodeArgs?: string[];
}): Promise<GatewayProcess> {
  return onFreePort((port) => startGatewayProcessAt(port, opts));
}

async function startGatewayProcessAt(
  port: number,
  opts: Parameters<typeof startGatewayProcess>[0],
): Promise<GatewayProcess> {
  const args = [
    ...(opts.nodeArgs ?? []),
    ...(opts.built
      ? ["--enable-source-maps", "gateway/dist/main.js"]
      : ["--conditions=countersign-source", "--import", "tsx", "gateway/src/main.ts"]),
  ];
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, args, {
    cwd: opts.cwd ?? root,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/root",
      DATABASE_URL: opts.databaseUrl,
      COUNTERSIGN_HOST: "127.0.0.1",
      COUNTERSIGN_GATEWAY_PORT: String(port),
      COUNTERSIGN_KEY_HASH_SECRET: opts.keyHashSecret.toString("base64url"),
      COUNTERSIGN_GATEWAY_SIGNING_KEY: Buffer.from(opts.signingKey).toString("base64url"),
      COUNTERSIGN_DEFAULT_PLAN: "developer",
      COUNTERSIGN_LOG_LEVEL: "warn",
      COUNTERSIGN_SHUTDOWN_GRACE_SECONDS: "2",
      ...opts.env,
    },
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway exited ${child.exitCode}: ${out}`);
    if (Date.now() > deadline) throw new Error(`gateway did not become ready: ${out}`);
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    output: () => out,
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}

export async function authorizeAt(
  url: string,
  key: string,
  body: unknown,
): Promise<{ status: number; body: JsonBody }> {
  const res = await fetch(`${url}/v1/authorize`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}
