// Where `make control-plane` (build.sh) put the binaries for the pinned Kubernetes version.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");

export const kubernetesVersion = readFileSync(path.join(here, "version"), "utf8").trim();

export function controlPlaneBinaries(): { kubeApiserver: string; etcd: string; kubectl: string } {
  const dir = process.env.CONTROL_PLANE_DIR ?? path.join(root, ".cache/control-plane", kubernetesVersion);
  const kubeApiserver = path.join(dir, "kube-apiserver");
  const etcd = path.join(dir, "etcd");
  if (!existsSync(kubeApiserver) || !existsSync(etcd)) {
    throw new Error(
      `no control plane in ${dir}: run \`make control-plane\` (builds kube-apiserver ${kubernetesVersion} once)`,
    );
  }
  return { kubeApiserver, etcd, kubectl: "kubectl" };
}

export const crdsDir = path.join(root, "crds");
