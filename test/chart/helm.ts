/**
 * helm for the chart tests: the binary `make helm` built through the Go module proxy into
 * .cache/helm/<version>/, runs of it that never throw on a non-zero exit, and `helm template`
 * parsed into objects.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import type { JsonBody } from "../fixtures/json.js";

export const root = fileURLToPath(new URL("../../", import.meta.url));
export const chartDir = path.join(root, "charts/countersign");
export const allOptionsValues = path.join(chartDir, "ci/all-options-values.yaml");
export const helmVersion = readFileSync(path.join(root, "charts/scripts/helm-version"), "utf8").trim();

export function helmBinary(): string {
  const dir = process.env.HELM_DIR ?? path.join(root, ".cache/helm", helmVersion);
  const helm = path.join(dir, "helm");
  if (!existsSync(helm))
    throw new Error(`no helm in ${dir}: run \`make helm\` (builds helm ${helmVersion} once)`);
  return helm;
}

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs helm with its caches in a private folder (and the given kubeconfig, if any). */
export function helm(
  args: string[],
  options: { kubeconfig?: string; home?: string } = {},
): Promise<HelmResult> {
  const home = options.home ?? path.join(root, ".cache/helm/home");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HELM_CACHE_HOME: path.join(home, "cache"),
    HELM_CONFIG_HOME: path.join(home, "config"),
    HELM_DATA_HOME: path.join(home, "data"),
  };
  if (options.kubeconfig) env.KUBECONFIG = options.kubeconfig;
  return new Promise((resolve) => {
    execFile(helmBinary(), args, { env, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
  };
  [key: string]: JsonBody;
};

export function parseObjects(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((d) => {
      if (d.errors.length) throw new Error(`rendered YAML does not parse: ${d.errors[0]!.message}`);
      return d.toJS() as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null && typeof o === "object");
}

export const releaseNamespace = "countersign-system";

/** `helm template` of the chart (release "countersign"), hooks included, parsed; throws on failure. */
export async function render(args: string[] = []): Promise<K8sObject[]> {
  const res = await helm(["template", "countersign", chartDir, "--namespace", releaseNamespace, ...args]);
  if (res.code !== 0) throw new Error(`helm template failed: ${res.stderr}`);
  return parseObjects(res.stdout);
}

export const find = (objects: K8sObject[], kind: string, name: string): K8sObject => {
  const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`no ${kind} ${name} rendered`);
  return o;
};

/** helm's stderr without blank lines (the chart has no symlinks, so helm has nothing to warn about). */
export const problems = (stderr: string): string =>
  stderr
    .split("\n")
    .filter((line) => line.trim() !== "")
    .join("\n");
