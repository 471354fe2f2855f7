/**
 * The chart without a cluster: `helm lint` and `helm template` for the default values and for
 * every option on, the operator's ClusterRole and the CRDs exactly as checked in, generated
 * secrets in the formats the servers accept, the servers' configuration loading from what the
 * chart sets, and values.schema.json refusing wrong values with a message naming the key.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "../../core/src/config/index.js";
import { apiSettings } from "../../api/src/config.js";
import { gatewaySettings } from "../../gateway/src/config.js";
import { operatorSettings } from "../../operator/src/config.js";
import { installationSecret, missingValues } from "../../operator/src/installation-secrets/secrets.js";
import {
  allOptionsValues,
  chartDir,
  find,
  helm,
  releaseNamespace,
  render,
  root,
  type K8sObject,
} from "./helm.js";
import {
  alertQueries,
  dashboardConfigMap,
  dashboardOf,
  dashboardQueries,
  metricNames,
} from "./observability.js";

const defaults = await render();
const allOn = await render(["-f", allOptionsValues]);

const crdFiles = readdirSync(path.join(root, "crds")).filter((f) => f.endsWith(".countersign.dev.yaml"));

describe("helm lint", () => {
  it("passes for the default values", async () => {
    const res = await helm(["lint", "--strict", chartDir]);
    expect(res.stdout + res.stderr).toContain("0 chart(s) failed");
    expect(res.code).toBe(0);
  });

  it("passes with every option on", async () => {
    const res = await helm(["lint", "--strict", chartDir, "-f", allOptionsValues]);
    expect(res.stdout + res.stderr).toContain("0 chart(s) failed");
    expect(res.code).toBe(0);
  });
});

describe("helm template", () => {
  const kinds = (objects: K8sObject[]) => objects.map((o) => `${o.kind}/${o.metadata.name}`).sort();

  it("renders the servers, their Services, autoscaler, budgets, policies and RBAC by default", () => {
    expect(kinds(defaults)).toEqual(
      expect.arrayContaining([
        "Deployment/countersign-api",
        "Deployment/countersign-gateway",
        "Deployment/countersign-operator",
        "Service/countersign-api",
        "Service/countersign-gateway",
        "HorizontalPodAutoscaler/countersign-gateway",
        "PodDisruptionBudget/countersign-api",
        "PodDisruptionBudget/countersign-gateway",
        "PodDisruptionBudget/countersign-operator",
        "NetworkPolicy/countersign-api",
        "NetworkPolicy/countersign-gateway",
        "ServiceAccount/countersign-api",
        "ServiceAccount/countersign-gateway",
        "ServiceAccount/countersign-operator",
        "ClusterRole/countersign-operator",
        "ClusterRoleBinding/countersign-operator",
        "ClusterRole/countersign-api-tokenreview",
        "Job/countersign-installation-secrets",
        "ServiceAccount/countersign-installation-secrets",
        "Role/countersign-installation-secrets",
        "Job/countersign-migrations",
        "Job/countersign-crd-upgrade",
      ]),
    );
    // Off by default: trial database, ingress, Prometheus Operator objects.
    expect(
      defaults.filter((o) => ["StatefulSet", "Ingress", "ServiceMonitor", "PrometheusRule"].includes(o.kind)),
    ).toEqual([]);
    expect(find(defaults, "Deployment", "countersign-operator").spec.replicas).toBe(2);
  });

  it("renders every optional object with every option on", () => {
    expect(kinds(allOn)).toEqual(
      expect.arrayContaining([
        "StatefulSet/countersign-postgresql",
        "Service/countersign-postgresql",
        "NetworkPolicy/countersign-postgresql",
        "Ingress/countersign-api",
        "ServiceMonitor/countersign",
        "PrometheusRule/countersign",
        "Service/countersign-operator-metrics",
      ]),
    );
    // An existing installation Secret is used, not generated: with the trial database's Secret
    // made by the hook Job, only that one is in the Job's list.
    expect(allOn.some((o) => o.kind === "Secret" && o.metadata.name === "countersign-secrets")).toBe(false);
    const made = JSON.parse(
      find(allOn, "Job", "countersign-installation-secrets").spec.template.spec.containers[0].env.find(
        (e: { name: string }) => e.name === "COUNTERSIGN_INSTALLATION_SECRETS",
      ).value,
    );
    expect(made.map((s: { name: string }) => s.name)).toEqual(["countersign-database"]);
    const api = find(allOn, "Deployment", "countersign-api").spec.template.spec.containers[0];
    expect(api.image).toBe(
      "registry.example.com/countersign@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    );
    expect(
      api.env.find((e: { name: string }) => e.name === "COUNTERSIGN_KEY_HASH_SECRET").valueFrom.secretKeyRef
        .name,
    ).toBe("countersign-installation");
    // api.gatewayUrl replaces the in-cluster Service's URL the dashboard would show otherwise.
    expect(api.env.find((e: { name: string }) => e.name === "COUNTERSIGN_GATEWAY_URL").value).toBe(
      "https://gateway.countersign.example.com",
    );
  });

  it("renders the operator's ClusterRole with exactly the rules of config/rbac/operator-clusterrole.yaml", () => {
    const file = parse(readFileSync(path.join(root, "config/rbac/operator-clusterrole.yaml"), "utf8"));
    expect(find(defaults, "ClusterRole", "countersign-operator").rules).toEqual(file.rules);
    const binding = find(defaults, "ClusterRoleBinding", "countersign-operator");
    expect(binding.subjects).toEqual([
      { kind: "ServiceAccount", name: "countersign-operator", namespace: "countersign-system" },
    ]);
  });

  it("renders every CRD of crds/ unchanged, labelled and kept on uninstall", () => {
    const crds = defaults.filter((o) => o.kind === "CustomResourceDefinition");
    expect(crds.map((c) => `${c.metadata.name}.yaml`).sort()).toEqual([...crdFiles].sort());
    for (const crd of crds) {
      const file = parse(readFileSync(path.join(root, "crds", `${crd.metadata.name}.yaml`), "utf8"));
      expect(crd.spec).toEqual(file.spec);
      expect(crd.metadata.annotations).toEqual({ "helm.sh/resource-policy": "keep" });
      expect(crd.metadata.labels).toMatchObject({ "app.kubernetes.io/name": "countersign" });
    }
  });

  it("can leave the CRDs out, or let uninstall delete them", async () => {
    expect(
      (await render(["--set", "crds.enabled=false"])).filter(
        (o) => o.kind === "CustomResourceDefinition" || o.metadata.name.includes("crd-upgrade"),
      ),
    ).toEqual([]);
    const notKept = (await render(["--set", "crds.keep=false"])).filter(
      (o) => o.kind === "CustomResourceDefinition",
    );
    expect(notKept).toHaveLength(crdFiles.length);
    expect(notKept.every((c) => c.metadata.annotations === undefined)).toBe(true);
  });

  it("upgrades CRDs from a pre-upgrade hook Job holding exactly crds/, and migrates from a pre-install/pre-upgrade hook", async () => {
    const job = find(defaults, "Job", "countersign-crd-upgrade");
    expect(job.metadata.annotations!["helm.sh/hook"]).toBe("pre-upgrade");
    const configMap = find(defaults, "ConfigMap", "countersign-crd-upgrade");
    for (const f of crdFiles)
      expect(configMap.data[f]).toBe(readFileSync(path.join(root, "crds", f), "utf8").trimEnd());
    const migrations = find(defaults, "Job", "countersign-migrations");
    expect(migrations.metadata.annotations).toMatchObject({ "helm.sh/hook": "pre-install,pre-upgrade" });
    expect(migrations.spec.template.spec.containers[0].args).toEqual(["api/dist/migrate-main.js"]);
    // With the trial database, which does not exist before install, the Job runs after it.
    expect(find(allOn, "Job", "countersign-migrations").metadata.annotations!["helm.sh/hook"]).toBe(
      "post-install,pre-upgrade",
    );
  });

  it("spreads gateways over zones and nodes and scales them on CPU between the configured bounds", () => {
    const gateway = find(allOn, "Deployment", "countersign-gateway");
    expect(gateway.spec.replicas).toBeUndefined();
    const spread = gateway.spec.template.spec.topologySpreadConstraints;
    expect(spread.map((c: { topologyKey: string }) => c.topologyKey)).toEqual([
      "topology.kubernetes.io/zone",
      "kubernetes.io/hostname",
    ]);
    for (const c of spread) expect(c.labelSelector.matchLabels).toEqual(gateway.spec.selector.matchLabels);
    const hpa = find(allOn, "HorizontalPodAutoscaler", "countersign-gateway");
    expect(hpa.spec).toMatchObject({
      minReplicas: 3,
      maxReplicas: 20,
      scaleTargetRef: { kind: "Deployment", name: "countersign-gateway" },
    });
    expect(hpa.spec.metrics[0].resource).toEqual({
      name: "cpu",
      target: { type: "Utilization", averageUtilization: 60 },
    });
  });

  it("lets only the api, the gateway and the migrations reach the in-cluster database", () => {
    const policy = find(allOn, "NetworkPolicy", "countersign-postgresql");
    const components = policy.spec.ingress[0].from.map(
      (p: { podSelector: { matchLabels: Record<string, string> } }) =>
        p.podSelector.matchLabels["app.kubernetes.io/component"],
    );
    expect(components).toEqual(["api", "gateway", "migrations"]);
    const api = find(allOn, "NetworkPolicy", "countersign-api");
    expect(api.spec.ingress[0].from[0].podSelector.matchLabels["app.kubernetes.io/component"]).toBe(
      "operator",
    );
  });

  it("hands the api and the gateway the upstream CA bundle's file from its ConfigMap, and nothing by default", () => {
    for (const deployment of ["countersign-api", "countersign-gateway"]) {
      const pod = find(allOn, "Deployment", deployment).spec.template.spec;
      const container = pod.containers[0];
      const file = container.env.find(
        (e: { name: string }) => e.name === "COUNTERSIGN_UPSTREAM_CA_FILE",
      ).value;
      const mount = container.volumeMounts.find((m: { name: string }) => m.name === "upstream-ca");
      const volume = pod.volumes.find((v: { name: string }) => v.name === "upstream-ca");
      expect(mount.readOnly).toBe(true);
      expect(volume.configMap).toEqual({
        name: "internal-ca-bundle",
        items: [{ key: "bundle.pem", path: "bundle.pem" }],
      });
      // The file the server reads is the ConfigMap's key, where the volume puts it.
      expect(file).toBe(path.posix.join(mount.mountPath, volume.configMap.items[0].path));
      const plain = find(defaults, "Deployment", deployment).spec.template.spec;
      expect(plain.containers[0].env.map((e: { name: string }) => e.name)).not.toContain(
        "COUNTERSIGN_UPSTREAM_CA_FILE",
      );
      expect(plain.volumes.map((v: { name: string }) => v.name)).not.toContain("upstream-ca");
    }
  });
});

describe("the Grafana dashboard and the alerts", () => {
  it("ships the dashboard in a ConfigMap labelled for the Grafana sidecar only when switched on", async () => {
    expect(defaults.some((o) => o.kind === "ConfigMap" && o.metadata.name === dashboardConfigMap)).toBe(
      false,
    );
    const map = find(allOn, "ConfigMap", dashboardConfigMap);
    expect(map.metadata.labels?.grafana_dashboard).toBe("1");
    expect(map.metadata.annotations?.grafana_folder).toBe("Countersign");
    expect(map.metadata.namespace).toBe("countersign-system");
    // Exactly the file in the chart, so the JSON can be imported by hand too.
    expect(JSON.parse(map.data["countersign.json"])).toEqual(
      JSON.parse(readFileSync(path.join(chartDir, "files/dashboards/countersign.json"), "utf8")),
    );
    const moved = await render([
      "--set",
      "metrics.grafanaDashboard.enabled=true,metrics.grafanaDashboard.namespace=monitoring,metrics.grafanaDashboard.label=dashboards,metrics.grafanaDashboard.labelValue=countersign",
    ]);
    const elsewhere = find(moved, "ConfigMap", dashboardConfigMap);
    expect(elsewhere.metadata.namespace).toBe("monitoring");
    expect(elsewhere.metadata.labels).toMatchObject({ dashboards: "countersign" });
    expect(elsewhere.metadata.labels?.grafana_dashboard).toBeUndefined();
  });

  it("has a panel for each thing a platform engineer watches, every panel on the chosen data source with a Countersign query", () => {
    const dashboard = dashboardOf(allOn);
    const panels = dashboard.panels.filter((p) => p.type !== "row");
    const titles = panels.map((p) => p.title);
    for (const title of [
      "Decisions by status",
      "Refusals by status and code",
      "Decision latency",
      "Approval waits",
      "Upstream latency",
      "Webhook queue age",
      "Reconcile errors",
    ])
      expect(titles).toContain(title);
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
    for (const p of panels) {
      expect(p.datasource?.uid, p.title).toBe("${datasource}");
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      for (const t of p.targets!)
        expect(metricNames(t.expr).length, `${p.title}: ${t.expr}`).toBeGreaterThan(0);
    }
    const queries = dashboardQueries(dashboard)
      .map((q) => q.expr)
      .join("\n");
    for (const metric of [
      "countersign_decisions_total",
      "countersign_decision_duration_seconds_bucket",
      "countersign_approval_waits",
      "countersign_upstream_duration_seconds_bucket",
      "countersign_webhook_queue_age_seconds",
      "countersign_operator_reconciles_total",
    ])
      expect(queries).toContain(metric);
    expect(queries).toMatch(/countersign_decisions_total\{[^}]*\}\[\$__rate_interval\]\)\)/);
  });

  it("alerts on decisions, latency, approval waits, webhooks and the operator, each with a summary and a description", () => {
    const rule = find(allOn, "PrometheusRule", "countersign");
    const rules = rule.spec.groups[0].rules as Array<{
      alert: string;
      expr: string;
      for: string;
      labels: { severity: string };
      annotations: Record<string, string>;
    }>;
    expect(rules.map((r) => r.alert).sort()).toEqual(
      [
        "CountersignApprovalWaitsSaturated",
        "CountersignDecisionErrorRateHigh",
        "CountersignDecisionLatencyHigh",
        "CountersignOperatorNoLeader",
        "CountersignOperatorReconcileErrors",
        "CountersignWebhookDeliveriesFailing",
        "CountersignWebhookQueueStalled",
      ].sort(),
    );
    for (const r of rules) {
      expect(["warning", "critical"]).toContain(r.labels.severity);
      expect(r.annotations.summary && r.annotations.description, r.alert).toBeTruthy();
      expect(metricNames(r.expr).length, r.alert).toBeGreaterThan(0);
    }
    expect(
      alertQueries(allOn).find((q) => q.where === "alert CountersignDecisionLatencyHigh")!.expr,
    ).toContain("> 0.5");
  });

  it("refuses a dashboard namespace or label value Kubernetes would refuse, naming the key", async () => {
    for (const [set, key] of [
      ["metrics.grafanaDashboard.namespace=Monitoring", "metrics.grafanaDashboard.namespace"],
      ["metrics.grafanaDashboard.labelValue=not ok", "metrics.grafanaDashboard.labelValue"],
    ]) {
      const res = await helm([
        "template",
        "countersign",
        chartDir,
        "--set",
        `metrics.grafanaDashboard.enabled=true,${set!}`,
      ]);
      expect(res.code).not.toBe(0);
      expect(res.stderr).toContain(key);
      expect(res.stdout).toBe("");
    }
  });
});

describe("rendering is repeatable (a GitOps renderer without lookup replaces nothing)", () => {
  it("renders byte for byte the same output twice, for the defaults, every option, and the trial database", async () => {
    for (const args of [
      [],
      ["-f", allOptionsValues],
      ["--set", "postgresql.enabled=true,database.existingSecret="],
      ["--api-versions", "cert-manager.io/v1"],
    ]) {
      const first = await helm([
        "template",
        "countersign",
        chartDir,
        "--namespace",
        releaseNamespace,
        ...args,
      ]);
      const second = await helm([
        "template",
        "countersign",
        chartDir,
        "--namespace",
        releaseNamespace,
        ...args,
      ]);
      expect(first.code, first.stderr).toBe(0);
      expect(second.stdout).toBe(first.stdout);
    }
  });

  it("has no symlinks for helm to warn about: every command's stderr is empty", async () => {
    const res = await helm(["template", "countersign", chartDir, "--namespace", releaseNamespace]);
    expect(res.stderr).toBe("");
    const linted = await helm(["lint", chartDir]);
    expect(linted.stderr).not.toContain("symbolic link");
  });

  it("makes the installation secrets in a pre-install/pre-upgrade hook Job allowed to touch only those Secrets", () => {
    const job = find(defaults, "Job", "countersign-installation-secrets");
    expect(job.metadata.annotations).toMatchObject({ "helm.sh/hook": "pre-install,pre-upgrade" });
    expect(job.spec.template.spec.containers[0].args).toEqual(["operator/dist/installation-secrets/main.js"]);
    const role = find(defaults, "Role", "countersign-installation-secrets");
    expect(role.rules).toEqual([
      {
        apiGroups: [""],
        resources: ["secrets"],
        resourceNames: ["countersign-secrets"],
        verbs: ["get", "update"],
      },
      { apiGroups: [""], resources: ["secrets"], verbs: ["create"] },
    ]);
    // No Secret with data is rendered at all (the api's token Secret is filled by the cluster).
    expect(defaults.filter((o) => o.kind === "Secret" && (o.data || o.stringData))).toEqual([]);
  });
});

describe("the operator's RBAC with watchNamespace", () => {
  it("is a Role and RoleBinding in that namespace (and one for the Lease in the release namespace), no ClusterRole", async () => {
    const objects = await render(["--set", "operator.watchNamespace=payments-team"]);
    expect(objects.some((o) => o.kind === "ClusterRole" && o.metadata.name === "countersign-operator")).toBe(
      false,
    );
    const file = parse(readFileSync(path.join(root, "config/rbac/operator-clusterrole.yaml"), "utf8"));
    const role = find(objects, "Role", "countersign-operator");
    expect(role.metadata.namespace).toBe("payments-team");
    const lease = find(objects, "Role", "countersign-operator-lease");
    expect(lease.metadata.namespace).toBe("countersign-system");
    expect([...role.rules, ...lease.rules]).toEqual(expect.arrayContaining(file.rules));
    expect(role.rules.length + lease.rules.length).toBe(file.rules.length);
    expect(find(objects, "RoleBinding", "countersign-operator").subjects).toEqual([
      { kind: "ServiceAccount", name: "countersign-operator", namespace: "countersign-system" },
    ]);
  });
});

describe("the admission webhook", () => {
  it("is served with cert-manager's certificates when cert-manager is in the cluster, failurePolicy Ignore by default", async () => {
    const objects = await render(["--api-versions", "cert-manager.io/v1"]);
    const config = find(objects, "ValidatingWebhookConfiguration", "countersign-operator");
    expect(config.metadata.annotations).toEqual({
      "cert-manager.io/inject-ca-from": "countersign-system/countersign-operator-webhook",
    });
    expect(config.webhooks[0]).toMatchObject({
      name: "policies.countersign.dev",
      failurePolicy: "Ignore",
      sideEffects: "None",
      clientConfig: { service: { name: "countersign-operator-webhook", path: "/validate" } },
    });
    const certificate = find(objects, "Certificate", "countersign-operator-webhook");
    expect(certificate.spec).toMatchObject({
      secretName: "countersign-operator-webhook-tls",
      renewBefore: "720h",
      dnsNames: expect.arrayContaining(["countersign-operator-webhook.countersign-system.svc"]),
    });
    const pod = find(objects, "Deployment", "countersign-operator").spec.template.spec;
    expect(pod.volumes.find((v: { name: string }) => v.name === "webhook-tls").secret.secretName).toBe(
      "countersign-operator-webhook-tls",
    );
    const env = pod.containers[0].env;
    expect(env.find((e: { name: string }) => e.name === "COUNTERSIGN_OPERATOR_WEBHOOK_CERT_DIR").value).toBe(
      "/var/run/secrets/countersign.dev/webhook",
    );
    expect(pod.containers[0].readinessProbe.httpGet.path).toBe("/readyz");
    // The kube-apiserver must reach the webhook through the operator's NetworkPolicy.
    expect(find(objects, "NetworkPolicy", "countersign-operator").spec.ingress[0].ports).toEqual([
      { port: "http", protocol: "TCP" },
      { port: "webhook", protocol: "TCP" },
    ]);
  });

  it("is off without cert-manager or a given certificate, and enabled=true without either is refused by name", async () => {
    expect(defaults.some((o) => o.kind === "ValidatingWebhookConfiguration")).toBe(false);
    const res = await helm([
      "template",
      "countersign",
      chartDir,
      "--set",
      "operator.admissionWebhook.enabled=true",
    ]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("operator.admissionWebhook.enabled=true needs cert-manager");
    const given = await render([
      "--set",
      "operator.admissionWebhook.existingSecret=webhook-tls,operator.admissionWebhook.caBundle=Q0E=,operator.admissionWebhook.failurePolicy=Fail",
    ]);
    expect(find(given, "ValidatingWebhookConfiguration", "countersign-operator").webhooks[0]).toMatchObject({
      failurePolicy: "Fail",
      clientConfig: { caBundle: "Q0E=" },
    });
  });
});

describe("what the chart hands the servers", () => {
  // The values the hook Job makes, by the Job's own code from the Job's own list.
  const jobEnv = find(defaults, "Job", "countersign-installation-secrets").spec.template.spec.containers[0]
    .env;
  const wanted = installationSecret
    .array()
    .parse(
      JSON.parse(jobEnv.find((e: { name: string }) => e.name === "COUNTERSIGN_INSTALLATION_SECRETS").value),
    );
  const made = missingValues(
    wanted.find((s) => s.name === "countersign-secrets")!,
    {},
  );
  const secretValue = (key: string) => made[key]!;

  /** The environment a container would get, with the chart's Secrets resolved and DATABASE_URL given. */
  function environment(objects: K8sObject[], deployment: string): NodeJS.ProcessEnv {
    const container = find(objects, "Deployment", deployment).spec.template.spec.containers[0];
    const env: NodeJS.ProcessEnv = {};
    for (const e of container.env as Array<{
      name: string;
      value?: string;
      valueFrom?: { secretKeyRef?: { name: string; key: string }; fieldRef?: unknown };
    }>) {
      if (e.value !== undefined) env[e.name] = e.value;
      else if (e.valueFrom?.secretKeyRef?.name === "countersign-secrets")
        env[e.name] = secretValue(e.valueFrom.secretKeyRef.key);
      else if (e.name === "DATABASE_URL") env[e.name] = "postgres://countersign@db.example:5432/countersign";
      else if (e.name === "COUNTERSIGN_TOKENREVIEW_TOKEN") env[e.name] = "a-service-account-token";
      else if (e.valueFrom?.fieldRef) env[e.name] = "countersign-system";
    }
    return env;
  }

  it("generates installation secrets the servers accept, each different", () => {
    const values = [
      "COUNTERSIGN_KEY_HASH_SECRET",
      "COUNTERSIGN_GATEWAY_SIGNING_KEY",
      "COUNTERSIGN_CREDENTIAL_KEY",
    ].map(secretValue);
    expect(new Set(values).size).toBe(3);
    for (const v of values) expect(Buffer.from(v, "base64url")).toHaveLength(32);
  });

  it("configures the api, the gateway and the operator with settings that load", () => {
    // loadConfig throws a ConfigError naming every bad or unknown setting.
    const api = loadConfig(apiSettings, environment(defaults, "countersign-api"));
    expect(api).toMatchObject({
      port: 8080,
      tokenReviewUrl: "https://kubernetes.default.svc",
      tokenReviewAudience: "countersign",
      mailOutboxDir: "/tmp/outbox",
      // The Gateway Service's in-cluster URL, shown in the dashboard, unless api.gatewayUrl says otherwise.
      gatewayUrl: "http://countersign-gateway.countersign-system.svc:8081",
    });
    expect(api.gatewaySigningKey).toBeDefined();
    const gateway = loadConfig(gatewaySettings, environment(defaults, "countersign-gateway"));
    expect(gateway.port).toBe(8081);
    expect(Buffer.from(gateway.signingKey).equals(Buffer.from(api.gatewaySigningKey!))).toBe(true);
    const operator = loadConfig(operatorSettings, environment(defaults, "countersign-operator"));
    expect(operator).toMatchObject({
      apiUrl: "http://countersign-api.countersign-system.svc:8080",
      leaseName: "countersign-operator",
      healthPort: 8083,
    });
  });

  it("gives the operator a projected token for the audience the api's TokenReview requires", () => {
    const pod = find(defaults, "Deployment", "countersign-operator").spec.template.spec;
    const projected = pod.volumes.find((v: { name: string }) => v.name === "cloud-api-token").projected
      .sources[0].serviceAccountToken;
    expect(projected.audience).toBe("countersign");
    const apiEnv = find(defaults, "Deployment", "countersign-api").spec.template.spec.containers[0].env;
    expect(apiEnv.find((e: { name: string }) => e.name === "COUNTERSIGN_TOKENREVIEW_AUDIENCE").value).toBe(
      projected.audience,
    );
  });
});

describe("values.schema.json", () => {
  const refused = async (args: string[], mention: string) => {
    const res = await helm(["template", "countersign", chartDir, ...args]);
    expect(res.code, res.stdout).not.toBe(0);
    expect(res.stderr).toContain(mention);
    expect(res.stdout).toBe("");
  };

  it("refuses a wrong type, an unknown key, an out-of-range number and an unknown enum value, naming the key", async () => {
    await refused(["--set", "gateway.autoscaling.maxReplicas=many"], "gateway.autoscaling.maxReplicas");
    await refused(["--set", "gateway.autoscalng.enabled=true"], "autoscalng");
    await refused(
      ["--set", "gateway.autoscaling.targetCPUUtilizationPercentage=150"],
      "targetCPUUtilizationPercentage",
    );
    await refused(["--set", "logLevel=loud"], "logLevel");
    await refused(["--set", "api.dashboardOrigin=https://example.com/path"], "dashboardOrigin");
    await refused(["--set", "api.gatewayUrl=gateway.example.com"], "gatewayUrl");
  });

  it("refuses to run anything as root or with privilege escalation", async () => {
    await refused(["--set", "podSecurityContext.runAsNonRoot=false"], "podSecurityContext.runAsNonRoot");
    await refused(
      ["--set", "containerSecurityContext.allowPrivilegeEscalation=true"],
      "containerSecurityContext.allowPrivilegeEscalation",
    );
  });

  it("refuses an installation without a database", async () => {
    await refused(["--set", "database.existingSecret="], "database.existingSecret");
  });
});
