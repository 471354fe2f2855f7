/**
 * stripe-mock (Stripe's own mock of its API, built by build.sh through the Go module proxy) as a
 * process for one test file: HTTP on 127.0.0.1 at a port the system chooses (its HTTPS listener
 * too, which nothing uses, so it never takes a fixed port). stripe-mock is stateless: it checks
 * each request against Stripe's OpenAPI document and answers a fixture (docs/billing.md).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
export const stripeMockVersion = readFileSync(path.join(here, "version"), "utf8").trim();

export interface StripeMock {
  /** http://127.0.0.1:<port> */
  url: string;
  stop(): Promise<void>;
}

export async function startStripeMock(): Promise<StripeMock> {
  const dir = process.env.STRIPE_MOCK_DIR ?? path.join(root, ".cache/stripe-mock", stripeMockVersion);
  const binary = path.join(dir, "stripe-mock");
  if (!existsSync(binary))
    throw new Error(
      `no stripe-mock in ${dir}: run \`make stripe-mock\` (builds it once through the Go module proxy)`,
    );
  const child = spawn(binary, ["-http-addr", "127.0.0.1:", "-https-addr", "127.0.0.1:"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = "";
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const m = /Listening for HTTP at address: (127\.0\.0\.1:\d+)/.exec(seen);
      if (m) resolve(`http://${m[1]}`);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`stripe-mock exited (${code}) before listening: ${seen}`)));
    child.once("error", reject);
  });
  return { url, stop: () => stop(child) };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
