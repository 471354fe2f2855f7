// A real Kubernetes control plane for tests: etcd and kube-apiserver on free loopback ports with
// generated certificates and RBAC, the countersign.dev CRDs applied and Established, and
// kubeconfigs for the harness's admin (system:masters) or for an identity it impersonates.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { controlPlaneBinaries, crdsDir } from "./binaries.js";
import { makeCertificates, pem, type Certificates } from "./certificates.js";
import { startEtcd, type Etcd } from "./etcd.js";
import { kubeApiserver, type KubeApiserver } from "./kube-apiserver.js";
import { freePort } from "./processes.js";

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface KubeconfigOptions {
  /** Impersonate this user (e.g. `system:serviceaccount:<ns>:<name>`) with the admin's certificate. */
  impersonate?: string;
  /** Authenticate with a bearer token (e.g. from `kubectl create token`) instead of the certificate. */
  token?: string;
}

export interface ControlPlane {
  /** https://127.0.0.1:<port> */
  server: string;
  /** The admin kubeconfig file (user in group system:masters). */
  kubeconfigPath: string;
  /** PEM of the CA that signed the apiserver's serving certificate. */
  caCert: string;
  /** PEM certificate and key of the harness's admin (group system:masters). */
  adminCredentials: { cert: string; key: string };
  /** Writes a kubeconfig file for another identity and returns its path. */
  kubeconfig(options: KubeconfigOptions): string;
  /** Runs kubectl with the admin kubeconfig (or `kubeconfig`), never throwing on a non-zero exit. */
  kubectl(args: string[], options?: { input?: string; kubeconfig?: string }): Promise<KubectlResult>;
  /** Stops and starts kube-apiserver at the same address; etcd keeps the data. */
  restartApiServer(): Promise<void>;
  stopApiServer(): Promise<void>;
  startApiServer(): Promise<void>;
  stop(): Promise<void>;
}

function kubeconfigText(server: string, certs: Certificates, options: KubeconfigOptions): string {
  const b64 = (file: string) => Buffer.from(pem(file)).toString("base64");
  const user: Record<string, unknown> = options.token
    ? { token: options.token }
    : { "client-certificate-data": b64(certs.adminCert), "client-key-data": b64(certs.adminKey) };
  if (options.impersonate) user.as = options.impersonate;
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "test", cluster: { server, "certificate-authority-data": b64(certs.caCert) } }],
    users: [{ name: "test", user }],
    contexts: [{ name: "test", context: { cluster: "test", user: "test", namespace: "default" } }],
    "current-context": "test",
  });
}

export function runKubectl(kubeconfig: string, args: string[], input?: string): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile(
      "kubectl",
      [`--kubeconfig=${kubeconfig}`, ...args],
      { maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

export interface StartOptions {
  /** Apply crds/ and wait for Established (default true). */
  crds?: boolean;
}

export async function startControlPlane(options: StartOptions = {}): Promise<ControlPlane> {
  const binaries = controlPlaneBinaries();
  const dir = mkdtempSync(path.join(os.tmpdir(), "countersign-kube-"));
  let etcd: Etcd | undefined;
  let apiserver: KubeApiserver | undefined;
  const stop = async () => {
    await apiserver?.stop();
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const certs = makeCertificates(dir);
    etcd = await startEtcd(binaries.etcd, dir);
    apiserver = kubeApiserver(binaries.kubeApiserver, dir, certs, etcd.url, await freePort());
    await apiserver.start();
    const server = apiserver.url;
    const kubeconfigPath = path.join(dir, "admin.kubeconfig");
    writeFileSync(kubeconfigPath, kubeconfigText(server, certs, {}));
    let written = 0;
    const api = apiserver;
    const plane: ControlPlane = {
      server,
      kubeconfigPath,
      caCert: pem(certs.caCert),
      adminCredentials: { cert: pem(certs.adminCert), key: pem(certs.adminKey) },
      kubeconfig(opts) {
        const file = path.join(dir, `user-${++written}.kubeconfig`);
        writeFileSync(file, kubeconfigText(server, certs, opts));
        return file;
      },
      kubectl: (args, opts = {}) => runKubectl(opts.kubeconfig ?? kubeconfigPath, args, opts.input),
      async restartApiServer() {
        await api.stop();
        await api.start();
      },
      stopApiServer: () => api.stop(),
      startApiServer: () => api.start(),
      stop,
    };
    if (options.crds !== false) await applyCrds(plane);
    return plane;
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Applies every CRD of crds/ and waits until the apiserver serves them. */
export async function applyCrds(plane: ControlPlane): Promise<void> {
  const applied = await plane.kubectl(["apply", "--server-side", "-f", crdsDir]);
  if (applied.code !== 0) throw new Error(`applying crds/ failed: ${applied.stderr}`);
  const waited = await plane.kubectl(["wait", "--for=condition=Established", "--timeout=60s", "-f", crdsDir]);
  if (waited.code !== 0) throw new Error(`crds/ not Established: ${waited.stderr}`);
}
