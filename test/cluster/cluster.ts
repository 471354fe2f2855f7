/**
 * The single-node cluster of test/cluster/cluster.sh for a test: started with the OCI archives to
 * import, ready when the script writes <dir>/ready, stopped (SIGTERM: the script removes its pods,
 * processes, mounts, iptables rules and bridge) by `stop()`. kubectl is the one built with the
 * cluster (.cache/cluster/<version>/kubectl), run with the cluster's admin kubeconfig.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("../../", import.meta.url));
export const kubernetesVersion = readFileSync(path.join(root, "test/control-plane/version"), "utf8").trim();
export const imagesDir = process.env.IMAGES_DIR ?? path.join(root, ".cache/images");
const binDir = path.join(root, ".cache/cluster", kubernetesVersion);

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Cluster {
  dir: string;
  kubeconfig: string;
  /** The node's address: the bridge's, where every cluster server listens. */
  nodeIp: string;
  kubectl(args: string[], options?: { input?: string; timeoutMs?: number }): Promise<KubectlResult>;
  /** kubectl that throws (with its stderr) on a non-zero exit; returns stdout. */
  kubectlOk(args: string[], input?: string): Promise<string>;
  /** `kubectl get ... -o json`, parsed. */
  get(args: string[]): Promise<Record<string, unknown> & { items?: unknown[] }>;
  /** `kubectl port-forward` to a target; resolves with the local port once it listens. */
  portForward(namespace: string, target: string, port: number): Promise<PortForward>;
  /** Gives an image already in the node's containerd another name (`ctr images tag`). */
  tagImage(from: string, to: string): Promise<void>;
  stop(): Promise<void>;
}

export interface PortForward {
  localPort: number;
  close(): void;
}

/** Paths of OCI archives that `make images` wrote, failing clearly when one is missing. */
export function imageArchive(name: string): string {
  const file = path.join(imagesDir, name);
  if (!existsSync(file)) throw new Error(`no ${file}: run \`make images\` (buildah) first`);
  return file;
}

/**
 * `publicHosts`: name -> public address of servers "outside the cluster" that run on this machine
 * (cluster.sh puts each address on its bridge and each name into CoreDNS).
 */
export async function startCluster(options: {
  images: string[];
  publicHosts?: Record<string, string>;
  timeoutMs?: number;
}): Promise<Cluster> {
  for (const b of ["kubelet", "kube-proxy", "coredns", "kubectl"]) {
    if (!existsSync(path.join(binDir, b))) throw new Error(`no ${b} in ${binDir}: run \`make cluster\``);
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "countersign-cluster-"));
  const log: string[] = [];
  const child: ChildProcess = spawn(path.join(root, "test/cluster/cluster.sh"), [dir], {
    env: {
      ...process.env,
      CLUSTER_IMAGES: options.images.join(" "),
      CLUSTER_PUBLIC_HOSTS: Object.entries(options.publicHosts ?? {})
        .map(([name, address]) => `${name}=${address}`)
        .join(" "),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  child.stdout?.on("data", (d: Buffer) => log.push(d.toString()));
  child.stderr?.on("data", (d: Buffer) => log.push(d.toString()));
  const kubeconfig = path.join(dir, "admin.kubeconfig");
  const deadline = Date.now() + (options.timeoutMs ?? 240_000);
  let early: number | null | undefined;
  void exited.then((code) => (early = code));
  while (!existsSync(path.join(dir, "ready"))) {
    if (early !== undefined) throw new Error(`cluster.sh exited (${early}) before ready:\n${log.join("")}`);
    if (Date.now() > deadline) {
      child.kill("SIGTERM");
      await exited;
      throw new Error(`the cluster was not ready in time:\n${log.join("")}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }

  const kubectl = (args: string[], opts: { input?: string; timeoutMs?: number } = {}) =>
    new Promise<KubectlResult>((resolve) => {
      const p = execFile(
        path.join(binDir, "kubectl"),
        args,
        {
          env: { ...process.env, KUBECONFIG: kubeconfig },
          maxBuffer: 64 << 20,
          timeout: opts.timeoutMs ?? 120_000,
        },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
      if (opts.input !== undefined) p.stdin?.end(opts.input);
    });
  const kubectlOk = async (args: string[], input?: string) => {
    const res = await kubectl(args, input === undefined ? {} : { input });
    if (res.code !== 0) throw new Error(`kubectl ${args.join(" ")}: ${res.stderr}`);
    return res.stdout;
  };
  const forwards: ChildProcess[] = [];
  return {
    dir,
    kubeconfig,
    nodeIp: process.env.CLUSTER_SUBNET_PREFIX ? `${process.env.CLUSTER_SUBNET_PREFIX}.1` : "10.213.0.1",
    kubectl,
    kubectlOk,
    get: async (args) => JSON.parse(await kubectlOk(["get", ...args, "-o", "json"])),
    portForward: (namespace, target, port) =>
      new Promise<PortForward>((resolve, reject) => {
        const p = spawn(
          path.join(binDir, "kubectl"),
          ["port-forward", "-n", namespace, "--address", "127.0.0.1", target, `:${port}`],
          { env: { ...process.env, KUBECONFIG: kubeconfig }, stdio: ["ignore", "pipe", "pipe"] },
        );
        forwards.push(p);
        let err = "";
        p.stderr?.on("data", (d: Buffer) => (err += d.toString()));
        p.stdout?.on("data", (d: Buffer) => {
          const m = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(d.toString());
          if (m) resolve({ localPort: Number(m[1]), close: () => p.kill("SIGTERM") });
        });
        p.on("exit", (code) => reject(new Error(`kubectl port-forward ${target} exited (${code}): ${err}`)));
      }),
    tagImage: (from, to) =>
      new Promise<void>((resolve, reject) => {
        execFile(
          "ctr",
          [
            "--address",
            path.join(dir, "containerd/containerd.sock"),
            "-n",
            "k8s.io",
            "images",
            "tag",
            from,
            to,
          ],
          (error, _stdout, stderr) => (error ? reject(new Error(`ctr images tag: ${stderr}`)) : resolve()),
        );
      }),
    stop: async () => {
      for (const p of forwards) p.kill("SIGTERM");
      if (child.exitCode === null) child.kill("SIGTERM");
      const code = await exited;
      if (code !== 0) throw new Error(`cluster.sh stopped with ${code}:\n${log.join("").slice(-4000)}`);
    },
  };
}
