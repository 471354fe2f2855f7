/**
 * A Cloud API as a real process (api/src/main.ts, the container's entry
 * point) with webhooks on, for tests of several processes and of a process
 * killed mid-delivery.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { fileURLToPath } from "node:url";
import { onFreePort } from "../fixtures/free-port.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

export interface ApiProcess {
  url: string;
  output: () => string;
  /** Still running (it neither exited nor was killed). */
  alive(): boolean;
  kill(signal: NodeJS.Signals): Promise<void>;
}

export async function startApiProcess(opts: {
  databaseUrl: string;
  credentialKey: Buffer;
  caFile?: string;
  keyHashSecret?: Buffer;
  /** More environment (e.g. the Gateway signing key, for closure receipts of approval decisions). */
  env?: Record<string, string>;
}): Promise<ApiProcess> {
  return onFreePort((port) => startApiProcessAt(port, opts));
}

async function startApiProcessAt(
  port: number,
  opts: Parameters<typeof startApiProcess>[0],
): Promise<ApiProcess> {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    ["--conditions=countersign-source", "--import", "tsx", "api/src/main.ts"],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/root",
        DATABASE_URL: opts.databaseUrl,
        COUNTERSIGN_HOST: "127.0.0.1",
        COUNTERSIGN_API_PORT: String(port),
        COUNTERSIGN_KEY_HASH_SECRET: (opts.keyHashSecret ?? Buffer.alloc(32, 7)).toString("base64url"),
        COUNTERSIGN_CREDENTIAL_KEY: opts.credentialKey.toString("base64"),
        ...(opts.caFile ? { COUNTERSIGN_WEBHOOK_CA_FILE: opts.caFile } : {}),
        COUNTERSIGN_ALLOW_LOOPBACK_URLS: "true",
        COUNTERSIGN_LOG_LEVEL: "info",
        COUNTERSIGN_SHUTDOWN_GRACE_SECONDS: "2",
        ...opts.env,
      },
    },
  );
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`api exited ${child.exitCode}: ${out}`);
    if (Date.now() > deadline) throw new Error(`api did not become ready: ${out}`);
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    output: () => out,
    alive: () => child.exitCode === null && child.signalCode === null,
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
