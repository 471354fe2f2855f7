// One etcd member on loopback ports, data in the control plane's temporary folder.
import path from "node:path";
import { freePort, startChild, stopChild, waitUntil, type Child } from "./processes.js";

export interface Etcd {
  url: string;
  stop(): Promise<void>;
}

export async function startEtcd(binary: string, dir: string): Promise<Etcd> {
  const clientPort = await freePort();
  const peerPort = await freePort();
  const url = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const child: Child = startChild(
    binary,
    [
      "--name=default",
      `--data-dir=${path.join(dir, "etcd-data")}`,
      `--listen-client-urls=${url}`,
      `--advertise-client-urls=${url}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=default=${peer}`,
    ],
    path.join(dir, "etcd.log"),
  );
  await waitUntil("etcd", async () => (await fetch(`${url}/health`)).ok, child);
  return { url, stop: () => stopChild(child) };
}
