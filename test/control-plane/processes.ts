// Child processes of the control plane: spawned with their output in a log file (read when a
// start fails), stopped with SIGTERM and, if they linger, SIGKILL.
import { spawn, type ChildProcess } from "node:child_process";
import { openSync, readFileSync } from "node:fs";
import net from "node:net";

export interface Child {
  process: ChildProcess;
  log: string;
  exited: Promise<number | null>;
}

export function startChild(command: string, args: string[], log: string): Child {
  const fd = openSync(log, "a");
  const child = spawn(command, args, { stdio: ["ignore", fd, fd] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { process: child, log, exited };
}

export async function stopChild(child: Child): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill("SIGTERM");
  const killer = setTimeout(() => child.process.kill("SIGKILL"), 10_000);
  await child.exited;
  clearTimeout(killer);
}

export function tail(log: string, lines = 40): string {
  try {
    return readFileSync(log, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}

/** A port nobody listens on right now (the kernel's choice). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `check` until it answers true, or fails with what the process logged. */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  child: Child,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.process.exitCode !== null)
      throw new Error(`${what}: process exited with ${child.process.exitCode}\n${tail(child.log)}`);
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what}: not ready after ${timeoutMs} ms\n${tail(child.log)}`);
}
