/**
 * The chart's production database mode (cloudnativepg.enabled, issue 45): what `helm template`
 * renders (a CloudNativePG Cluster of three instances with synchronous replication, required
 * durability and the failover quorum; a session-mode PgBouncer Pooler; the api, the Gateway and
 * the migrations Job pointed at the Pooler), the existing-database mode unchanged, and the rendered
 * Cluster and Pooler accepted by a real kube-apiserver with CloudNativePG's own CRDs installed
 * (server-side dry run), which also refuses a value its schema does not allow.
 *
 * The CRDs come from CloudNativePG's Go module (`make cnpg-crds`, charts/scripts/fetch-cnpg-crds.sh).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { randomBytes } from "node:crypto";
import { loadConfig } from "../../core/src/config/index.js";
import { apiSettings } from "../../api/src/config.js";
import { gatewaySettings } from "../../gateway/src/config.js";
import { startControlPlane, type ControlPlane } from "../control-plane/index.js";
import { find, helm, chartDir, releaseNamespace, render, root, type K8sObject } from "./helm.js";

const cnpgVersion = readFileSync(path.join(root, "charts/scripts/cnpg-version"), "utf8").trim();
const crdsDir = process.env.CNPG_CRDS_DIR ?? path.join(root, ".cache/cnpg-crds", cnpgVersion);
if (!existsSync(path.join(crdsDir, "postgresql.cnpg.io_clusters.yaml")))
  throw new Error(`no CloudNativePG CRDs in ${crdsDir}: run \`make cnpg-crds\``);

const cnpg = await render(["--set", "cloudnativepg.enabled=true"]);
const defaults = await render();

type Env = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };
const envOf = (objects: K8sObject[], kind: string, name: string): Env[] =>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a rendered pod template, read field by field
  ((find(objects, kind, name) as any).spec.template.spec.containers[0].env ?? []) as Env[];
const databaseEnv = (env: Env[]) => env.filter((e) => e.name === "DATABASE_URL" || e.name === "PGPASSWORD");

describe("helm template with cloudnativepg.enabled", () => {
  it("renders a Cluster of three instances, synchronous with required durability and the failover quorum", () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a rendered custom resource
    const cluster = find(cnpg, "Cluster", "countersign-db") as any;
    expect(cluster.apiVersion).toBe("postgresql.cnpg.io/v1");
    expect(cluster.metadata.namespace).toBe(releaseNamespace);
    expect(cluster.metadata.annotations).toEqual({ "alpha.cnpg.io/failoverQuorum": "true" });
    expect(cluster.spec.instances).toBe(3);
    expect(cluster.spec.postgresql.synchronous).toEqual({
      method: "any",
      number: 1,
      dataDurability: "required",
    });
    expect(cluster.spec.bootstrap.initdb).toMatchObject({ database: "countersign", owner: "countersign" });
    // docs/performance.md's settings, as strings (CloudNativePG's parameters are a map of strings).
    expect(cluster.spec.postgresql.parameters).toMatchObject({
      max_wal_size: "16GB",
      checkpoint_timeout: "15min",
      checkpoint_completion_target: "0.9",
      wal_compression: "lz4",
      default_toast_compression: "lz4",
    });
    for (const v of Object.values(cluster.spec.postgresql.parameters)) expect(typeof v).toBe("string");
    expect(cluster.spec.walStorage).toEqual({ size: "20Gi" });
  });

  it("renders a session-mode Pooler on the primary, and points the api, the Gateway and the migrations at it", () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a rendered custom resource
    const pooler = find(cnpg, "Pooler", "countersign-db-pooler") as any;
    expect(pooler.spec).toMatchObject({ cluster: { name: "countersign-db" }, type: "rw", instances: 2 });
    expect(pooler.spec.pgbouncer.poolMode).toBe("session");
    // Session mode: each Pooler instance may hold default_pool_size server connections; together
    // they must fit under the Cluster's max_connections (with room for replication and the operator).
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a rendered custom resource
    const cluster = find(cnpg, "Cluster", "countersign-db") as any;
    expect(pooler.spec.instances * Number(pooler.spec.pgbouncer.parameters.default_pool_size)).toBeLessThan(
      Number(cluster.spec.postgresql.parameters.max_connections) - 10,
    );
    const expected = [
      { name: "PGPASSWORD", valueFrom: { secretKeyRef: { name: "countersign-db-app", key: "password" } } },
      {
        name: "DATABASE_URL",
        value: `postgres://countersign@countersign-db-pooler.${releaseNamespace}.svc:5432/countersign`,
      },
    ];
    expect(databaseEnv(envOf(cnpg, "Deployment", "countersign-api"))).toEqual(expected);
    expect(databaseEnv(envOf(cnpg, "Deployment", "countersign-gateway"))).toEqual(expected);
    expect(databaseEnv(envOf(cnpg, "Job", "countersign-migrations"))).toEqual(expected);
    // The database is created by the install, so the migrations run after it, not before.
    expect(find(cnpg, "Job", "countersign-migrations").metadata.annotations?.["helm.sh/hook"]).toBe(
      "post-install,pre-upgrade",
    );
  });

  it("gives the api and the Gateway settings that load (the URL without a password, PGPASSWORD beside it)", () => {
    const environment = (deployment: string): NodeJS.ProcessEnv => {
      const env: NodeJS.ProcessEnv = {};
      for (const e of envOf(cnpg, "Deployment", deployment) as (Env & {
        valueFrom?: { fieldRef?: unknown };
      })[]) {
        if (e.value !== undefined) env[e.name] = e.value;
        else if (e.valueFrom?.secretKeyRef)
          env[e.name] = randomBytes(32).toString("base64url"); // a generated value
        else if (e.valueFrom?.fieldRef) env[e.name] = releaseNamespace;
      }
      return env;
    };
    // loadConfig throws a ConfigError naming every bad or unknown setting.
    const url = `postgres://countersign@countersign-db-pooler.${releaseNamespace}.svc:5432/countersign`;
    expect(loadConfig(gatewaySettings, environment("countersign-gateway")).databaseUrl).toBe(url);
    expect(loadConfig(apiSettings, environment("countersign-api")).databaseUrl).toBe(url);
  });

  it("without the Pooler, connects to the Cluster's -rw Service", async () => {
    const direct = await render([
      "--set",
      "cloudnativepg.enabled=true",
      "--set",
      "cloudnativepg.pooler.enabled=false",
    ]);
    expect(direct.filter((o) => o.kind === "Pooler")).toEqual([]);
    expect(databaseEnv(envOf(direct, "Deployment", "countersign-gateway"))[1]).toEqual({
      name: "DATABASE_URL",
      value: `postgres://countersign@countersign-db-rw.${releaseNamespace}.svc:5432/countersign`,
    });
  });

  it("leaves the existing-database mode as it was: no Cluster, DATABASE_URL from the user's Secret", () => {
    expect(defaults.filter((o) => o.kind === "Cluster" || o.kind === "Pooler")).toEqual([]);
    expect(databaseEnv(envOf(defaults, "Deployment", "countersign-api"))).toEqual([
      {
        name: "DATABASE_URL",
        valueFrom: { secretKeyRef: { name: "countersign-database", key: "DATABASE_URL" } },
      },
    ]);
    expect(find(defaults, "Job", "countersign-migrations").metadata.annotations?.["helm.sh/hook"]).toBe(
      "pre-install,pre-upgrade",
    );
  });

  it("refuses two databases at once, and a durability CloudNativePG does not know, naming the value", async () => {
    const both = await helm([
      "template",
      "countersign",
      chartDir,
      "--set",
      "cloudnativepg.enabled=true",
      "--set",
      "postgresql.enabled=true",
    ]);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain("cloudnativepg.enabled and postgresql.enabled are two databases");
    const wrong = await helm([
      "template",
      "countersign",
      chartDir,
      "--set",
      "cloudnativepg.enabled=true",
      "--set",
      "cloudnativepg.synchronous.dataDurability=sometimes",
    ]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain("dataDurability");
  });
});

describe("the rendered Cluster and Pooler on a kube-apiserver with CloudNativePG's CRDs", () => {
  let plane: ControlPlane;
  const scratch = mkdtempSync(path.join(os.tmpdir(), "countersign-cnpg-chart-"));
  // helm warns about a kubeconfig others may read.
  const helmKubeconfig = path.join(scratch, "admin.kubeconfig");
  beforeAll(async () => {
    plane = await startControlPlane({ crds: false });
    writeFileSync(helmKubeconfig, readFileSync(plane.kubeconfigPath), { mode: 0o600 });
    const applied = await plane.kubectl(["apply", "--server-side", "-f", crdsDir]);
    if (applied.code !== 0) throw new Error(`applying CloudNativePG's CRDs failed: ${applied.stderr}`);
    const waited = await plane.kubectl([
      "wait",
      "--for=condition=Established",
      "--timeout=60s",
      "-f",
      crdsDir,
    ]);
    if (waited.code !== 0) throw new Error(`CloudNativePG's CRDs not Established: ${waited.stderr}`);
    await plane.kubectl(["create", "namespace", releaseNamespace]);
  }, 180_000);
  afterAll(async () => {
    await plane?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  const dryRun = (items: unknown[]) =>
    plane.kubectl(["create", "--dry-run=server", "-o", "name", "-f", "-"], {
      input: stringify({ apiVersion: "v1", kind: "List", items }),
    });

  it("accepts both as rendered (server-side dry run)", async () => {
    const objects = cnpg.filter((o) => o.apiVersion === "postgresql.cnpg.io/v1");
    expect(objects.map((o) => o.kind).sort()).toEqual(["Cluster", "Pooler"]);
    const res = await dryRun(objects);
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect(res.stdout.trim().split("\n").sort()).toEqual([
      "cluster.postgresql.cnpg.io/countersign-db",
      "pooler.postgresql.cnpg.io/countersign-db-pooler",
    ]);
  });

  it("tells the installer in the notes which Cluster to wait for, not a Secret to create", async () => {
    const res = await helm(
      [
        "install",
        "countersign",
        chartDir,
        "-n",
        releaseNamespace,
        "--dry-run=server",
        "--set",
        "cloudnativepg.enabled=true",
      ],
      { kubeconfig: helmKubeconfig },
    );
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(
      'Database: the CloudNativePG Cluster "countersign-db" (3 instances, synchronous replication) behind the Pooler "countersign-db-pooler".',
    );
    expect(res.stdout).toContain(`kubectl -n ${releaseNamespace} get cluster countersign-db`);
    expect(res.stdout).not.toContain("--from-literal=DATABASE_URL");
  });

  it("refuses a Cluster its schema does not allow (the CRDs really validate)", async () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a rendered custom resource
    const cluster = structuredClone(find(cnpg, "Cluster", "countersign-db")) as any;
    cluster.spec.postgresql.synchronous.number = 0;
    const res = await dryRun([cluster]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("The number of synchronous replicas should be greater than zero");
  });
});
