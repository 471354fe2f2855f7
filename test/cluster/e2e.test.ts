/**
 * Countersign on a live single-node cluster (test/cluster/cluster.sh: kubelet on containerd and
 * runc, CNI bridge, kube-proxy, CoreDNS), with the images `make images` built here and imported
 * into containerd: `helm install` of charts/countersign with its in-cluster PostgreSQL, every server
 * Ready (migrations hook, api, two operators and their Lease, Gateway replicas); an organization
 * ready for decisions (written through a port-forward to the database); a decision and an MCP
 * tools/call through the Gateway Service from a pod, as an in-cluster agent, and through
 * `kubectl port-forward`; metrics from the pods' ports; then the operations a platform engineer
 * does: `helm upgrade` to a new image tag under traffic, a Gateway pod deleted under traffic, the
 * leading operator deleted, `helm uninstall`. See docs/cluster.md.
 */
import { execFileSync } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import tls from "node:tls";
import https from "node:https";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool } from "../../core/src/store/index.js";
import { nodeSigner } from "../../protocol/src/evidence/index.js";
import { parse, stringify } from "yaml";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  createAuthorizationWorld,
  createMcpTool,
  refundMapping,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { startEverythingUpstream, type EverythingUpstream } from "../fixtures/everything-upstream.js";
import { startUpstream, type Upstream } from "../fixtures/upstream-tools.js";
import { verifyWebhook } from "../../clients/typescript/src/index.js";
import { eventually } from "../fixtures/kube.js";
import { helm } from "../chart/helm.js";
import {
  imageArchive,
  kubernetesVersion,
  root,
  startCluster,
  type Cluster,
  type PortForward,
} from "./cluster.js";

const ns = "countersign-system";
// The upstream MCP server "outside the cluster": the Gateway calls only https at public addresses
// (SPEC 6.4), so it gets a name (served by the cluster's CoreDNS), a certificate from a CA of its
// own (the chart's upstreamCa) and an address the cluster borrows on its bridge while it runs.
const upstreamHost = "mcp.upstream.countersign.test";
const upstreamAddress = process.env.CLUSTER_UPSTREAM_ADDRESS ?? "192.0.3.77";
// The servers config/samples names, "outside the cluster" the same way: the payments MCP server of
// mcp-server.yaml (it checks the Authorization header kept in the sample's Secret) and the webhook
// receiver of webhook-endpoint.yaml.
const paymentsHost = "payments-mcp.example.com";
const paymentsAddress = process.env.CLUSTER_PAYMENTS_ADDRESS ?? "192.0.3.78";
const paymentsCredential = `Bearer sample-${randomBytes(8).toString("hex")}`;
const hooksHost = "hooks.example.com";
const hooksAddress = process.env.CLUSTER_HOOKS_ADDRESS ?? "192.0.3.79";
const chartDir = path.join(root, "charts/countersign");
const image = "localhost/countersign";
const values = [
  "--set",
  `image.repository=${image},image.tag=dev,image.pullPolicy=Never`,
  "--set",
  "postgresql.enabled=true,postgresql.image=localhost/countersign-base/postgresql:15-bookworm",
  "--set",
  `crds.upgradeJob.image=localhost/countersign-base/kubectl:${kubernetesVersion}`,
  "--set",
  "api.replicas=1",
  "--set",
  "upstreamCa.configMap=upstream-ca",
  "--set",
  "webhookCa.configMap=upstream-ca",
];

let cluster: Cluster;
let everything: EverythingUpstream;
let world: AuthorizationWorld;
let mcpTool = "";
/** The principal's private key (PEM), for the sample Organization's Secret. */
let principalPem = "";
let payments: Upstream;
const tlsFronts: tls.Server[] = [];
/** What reached the sample webhook receiver: each delivery's headers and raw body. */
const hookDeliveries: { headers: Record<string, unknown>; body: string }[] = [];
let hooksServer: https.Server;
const forwards: PortForward[] = [];

type Pod = {
  metadata: { name: string; labels?: Record<string, string> };
  spec: { containers: { image: string }[] };
  status: {
    phase: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { restartCount: number; image: string }[];
  };
};
const podsOf = async (component: string): Promise<Pod[]> =>
  ((await cluster.get(["pods", "-n", ns, "-l", `app.kubernetes.io/component=${component}`])).items ??
    []) as Pod[];
const ready = (p: Pod) =>
  p.status.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

/** Runs `script` with node in a pod of the Countersign image (as an in-cluster agent) and returns its output. */
async function runInPod(name: string, script: string): Promise<string> {
  await cluster.kubectlOk([
    "run",
    name,
    "-n",
    "default",
    `--image=${image}:dev`,
    "--image-pull-policy=Never",
    "--restart=Never",
    "--command",
    "--",
    "node",
    "--input-type=module",
    "-e",
    script,
  ]);
  const phase = await eventually(
    `pod ${name} finished`,
    async () => {
      const p = (await cluster.get(["pod", name, "-n", "default"])) as unknown as Pod;
      return ["Succeeded", "Failed"].includes(p.status.phase) && p.status.phase;
    },
    120_000,
  );
  const logs = await cluster.kubectlOk(["logs", "-n", "default", name]);
  expect(phase, logs).toBe("Succeeded");
  return logs;
}

/** A CA and one server certificate for all of `hosts`, made with openssl. */
function upstreamCertificates(hosts: string[]): { caFile: string; key: string; cert: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), "countersign-upstream-ca-"));
  writeFileSync(
    path.join(dir, "server.ext"),
    `subjectAltName=${hosts.map((h) => `DNS:${h}`).join(",")}\nextendedKeyUsage=serverAuth\n`,
  );
  const run = (args: string[]) =>
    execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
  run([
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
    "-subj",
    "/CN=upstream-ca",
    "-days",
    "2",
  ]);
  run([
    "req",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-keyout",
    "server.key",
    "-out",
    "server.csr",
    "-subj",
    `/CN=${hosts[0]}`,
  ]);
  run([
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "2",
    "-out",
    "server.crt",
    "-extfile",
    "server.ext",
  ]);
  return {
    caFile: path.join(dir, "ca.crt"),
    key: readFileSync(path.join(dir, "server.key"), "utf8"),
    cert: readFileSync(path.join(dir, "server.crt"), "utf8"),
  };
}

beforeAll(async () => {
  cluster = await startCluster({
    images: [
      imageArchive("countersign-dev.tar"),
      imageArchive("base-postgresql.tar"),
      imageArchive("base-kubectl.tar"),
    ],
    publicHosts: {
      [upstreamHost]: upstreamAddress,
      [paymentsHost]: paymentsAddress,
      [hooksHost]: hooksAddress,
    },
  });
  const certs = upstreamCertificates([upstreamHost, paymentsHost, hooksHost]);
  /** TLS in front of a plain server on loopback, at a borrowed public address. */
  const tlsFront = async (plainUrl: string, address: string) => {
    const plain = new URL(plainUrl);
    const server = tls.createServer({ key: certs.key, cert: certs.cert }, (socket) => {
      const upstream = net.connect(Number(plain.port), plain.hostname);
      socket.pipe(upstream).pipe(socket);
      socket.on("error", () => upstream.destroy());
      upstream.on("error", () => socket.destroy());
    });
    await new Promise<void>((resolve) => server.listen(443, address, resolve));
    tlsFronts.push(server);
    return server;
  };
  // The MCP project's reference server, behind TLS at the borrowed public address.
  everything = await startEverythingUpstream();
  await tlsFront(everything.url, upstreamAddress);
  // The sample's payments server: one tool, send_payment, behind the sample Secret's credential.
  payments = await startUpstream({
    requireAuthorization: paymentsCredential,
    tools: {
      send_payment: (args) => ({ content: [{ type: "text", text: `sent ${JSON.stringify(args)}` }] }),
    },
  });
  await tlsFront(payments.url, paymentsAddress);
  // The sample's webhook receiver: keeps each delivery, answers 204.
  hooksServer = https.createServer({ key: certs.key, cert: certs.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      hookDeliveries.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => hooksServer.listen(443, hooksAddress, resolve));
  await cluster.kubectlOk(["create", "namespace", ns]);
  await cluster.kubectlOk([
    "create",
    "configmap",
    "upstream-ca",
    "-n",
    ns,
    `--from-file=ca.crt=${certs.caFile}`,
  ]);
}, 300_000);

afterAll(async () => {
  for (const f of forwards) f.close();
  for (const server of tlsFronts) server.close();
  hooksServer?.close();
  await everything?.close();
  await payments?.close();
  await cluster?.stop();
}, 120_000);

describe("the chart on a live cluster", () => {
  it("helm install: the migrations hook, the api, two operators (one holds the Lease), the Gateway replicas and PostgreSQL are Ready", async () => {
    const res = await helm(
      [
        "install",
        "countersign",
        chartDir,
        "--namespace",
        ns,
        "--create-namespace",
        ...values,
        "--wait",
        "--timeout",
        "10m",
      ],
      { kubeconfig: cluster.kubeconfig },
    );
    expect(res.code, res.stderr).toBe(0);
    for (const [component, count] of [
      ["api", 1],
      ["gateway", 2],
      ["operator", 2],
      ["postgresql", 1],
    ] as const) {
      const pods = await podsOf(component);
      expect(pods.filter(ready).length, component).toBe(count);
    }
    // The migrations hook ran once (its Job is deleted on success; its event stays).
    const events = (await cluster.get(["events", "-n", ns, "--field-selector", "involvedObject.kind=Job"]))
      .items as { involvedObject: { name: string }; reason: string; count?: number }[];
    const created = events.filter(
      (e) => e.involvedObject.name === "countersign-migrations" && e.reason === "SuccessfulCreate",
    );
    expect(created.length).toBe(1);
    const operators = (await podsOf("operator")).map((p) => p.metadata.name);
    const lease = await eventually("an operator holds the Lease", async () => {
      const leases = (await cluster.get(["leases", "-n", ns])).items as {
        spec: { holderIdentity?: string };
      }[];
      return leases.find((l) => operators.includes(l.spec.holderIdentity ?? ""));
    });
    expect(operators).toContain(lease.spec.holderIdentity);
  }, 720_000);

  it("an organization ready for decisions, written through a port-forward to the in-cluster database", async () => {
    const secret = (await cluster.get(["secret", "countersign-database", "-n", ns])) as {
      data: Record<string, string>;
    };
    const password = Buffer.from(secret.data.POSTGRES_PASSWORD!, "base64").toString();
    const secrets = (await cluster.get(["secret", "countersign-secrets", "-n", ns])) as {
      data: Record<string, string>;
    };
    const keyHashSecret = Buffer.from(
      Buffer.from(secrets.data.COUNTERSIGN_KEY_HASH_SECRET!, "base64").toString(),
      "base64url",
    );
    const db = await cluster.portForward(ns, "svc/countersign-postgresql", 5432);
    forwards.push(db);
    const pool = createPool(
      `postgres://countersign:${encodeURIComponent(password)}@127.0.0.1:${db.localPort}/countersign`,
      {
        applicationName: "countersign-cluster-e2e",
      },
    );
    try {
      const { privateKey } = generateKeyPairSync("ed25519");
      principalPem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
      world = await createAuthorizationWorld(pool, keyHashSecret, { principal: nodeSigner(privateKey) });
      // What the owner does in the dashboard before applying the samples (NOTES.txt): the operator
      // bound as admin, allowed the changes an admin makes.
      await pool.query(
        "insert into operator_bindings (organization_id, username, role, allow_admin_changes, created_by) values ($1, $2, 'admin', true, $3)",
        [world.organizationId, `system:serviceaccount:${ns}:countersign-operator`, world.ownerId],
      );
      mcpTool = (
        await createMcpTool(pool, world.organizationId, {
          url: `https://${upstreamHost}/mcp`,
          upstreamName: "echo",
          amountMapping: refundMapping,
        })
      ).name;
    } finally {
      await pool.end();
    }
    expect(world.key).toMatch(/_/);
  }, 120_000);

  it("from a pod in the cluster, through the Gateway Service: a decision, and an MCP tools/call answered by the upstream with its receipt", async () => {
    const script = `
      const key = ${JSON.stringify(world.key)};
      const base = "http://countersign-gateway.${ns}.svc.cluster.local:8081";
      const decision = await fetch(base + "/v1/authorize", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer " + key },
        body: JSON.stringify({ tool: ${JSON.stringify(world.tool)}, arguments: { amount: 20 }, idempotency_key: "in-cluster-1" }),
      });
      const { Client } = await import("/app/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js");
      const { StreamableHTTPClientTransport } = await import("/app/node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js");
      const client = new Client({ name: "in-cluster-agent", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(base + "/mcp"), { requestInit: { headers: { authorization: "Bearer " + key } } }));
      const call = await client.callTool({ name: ${JSON.stringify(mcpTool)}, arguments: { message: "from a pod", amount: 5 }, _meta: { "service/idempotency-key": "in-cluster-mcp-1" } });
      await client.close();
      console.log(JSON.stringify({ status: decision.status, decision: await decision.json(), call }));
    `;
    const out = JSON.parse((await runInPod("in-cluster-agent", script)).trim().split("\n").pop()!);
    expect(out.status).toBe(200);
    expect(out.decision).toMatchObject({ allowed: true, status: "authorized" });
    expect(out.call.isError ?? false).toBe(false);
    expect(JSON.stringify(out.call.content)).toContain("from a pod");
    expect(out.call._meta.service.receipt_id).toEqual(expect.any(String));
  }, 240_000);

  it("through kubectl port-forward to the Gateway Service: a decision and an MCP tools/call", async () => {
    const gw = await cluster.portForward(ns, "svc/countersign-gateway", 8081);
    forwards.push(gw);
    const base = `http://127.0.0.1:${gw.localPort}`;
    const res = await fetch(`${base}/v1/authorize`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${world.key}` },
      body: JSON.stringify({ tool: world.tool, arguments: { amount: 20 }, idempotency_key: "forwarded-1" }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ allowed: true, status: "authorized" });
    const client = new Client({ name: "forwarded-agent", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${world.key}` } },
      }),
    );
    const call = await client.callTool({
      name: mcpTool,
      arguments: { message: "through a port-forward", amount: 5 },
      _meta: { "service/idempotency-key": `forwarded-mcp-${randomBytes(4).toString("hex")}` },
    });
    await client.close();
    expect(call.isError ?? false).toBe(false);
    expect(JSON.stringify(call.content)).toContain("through a port-forward");
  }, 120_000);

  it("metrics from each pod's port: the Gateway counted the decisions, the api and the operators answer", async () => {
    let decisions = 0;
    for (const component of ["gateway", "api", "operator"]) {
      for (const pod of await podsOf(component)) {
        const port = component === "gateway" ? 8081 : component === "api" ? 8080 : 8083;
        const f = await cluster.portForward(ns, `pod/${pod.metadata.name}`, port);
        try {
          const res = await fetch(`http://127.0.0.1:${f.localPort}/metrics`);
          expect(res.status, pod.metadata.name).toBe(200);
          const text = await res.text();
          expect(text).toMatch(/^# TYPE countersign_/m);
          if (component === "gateway") {
            for (const m of text.matchAll(
              /^countersign_decisions_total\{[^}]*status="authorized"[^}]*\} (\d+)/gm,
            ))
              decisions += Number(m[1]);
          }
        } finally {
          f.close();
        }
      }
    }
    // The two decisions and the two tools/calls above, over both replicas.
    expect(decisions).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it("config/samples applied with kubectl: every sample Ready (Organization, Policy, Agents, both MCPServers and their Tools, the WebhookEndpoint), the Agent's key from its Secret gets a decision through the Service, and its receipt.created reaches the sample receiver signed with the secret the operator wrote", async () => {
    const sample = parse(readFileSync(path.join(root, "config/samples/organization.yaml"), "utf8"));
    sample.spec.organizationId = world.organizationId;
    const samplesNs = sample.metadata.namespace as string;
    await cluster.kubectlOk(["create", "namespace", samplesNs]);
    const { name: keySecret, key: keyName } = sample.spec.principalKeySecretRef;
    await cluster.kubectlOk([
      "create",
      "secret",
      "generic",
      keySecret,
      "-n",
      samplesNs,
      `--from-literal=${keyName}=${principalPem}`,
    ]);
    // The Authorization header mcp-server.yaml's Secret holds for the payments server.
    await cluster.kubectlOk([
      "create",
      "secret",
      "generic",
      "payments-mcp-credential",
      "-n",
      samplesNs,
      `--from-literal=authorization=${paymentsCredential}`,
    ]);
    await cluster.kubectlOk(["apply", "-f", "-"], stringify(sample));
    for (const file of [
      "policy.yaml",
      "agents.yaml",
      "decision-only-tool.yaml",
      "mcp-server.yaml",
      "webhook-endpoint.yaml",
    ])
      await cluster.kubectlOk(["apply", "-f", path.join(root, "config/samples", file)]);
    type Resource = {
      status?: { conditions?: { type: string; status: string }[]; gatewayKey?: { secretName: string } };
    };
    const readyResource = (kind: string, name: string) => async () => {
      const o = (await cluster.get([`${kind}.countersign.dev/${name}`, "-n", samplesNs])) as Resource;
      return o.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") && o;
    };
    await eventually("the sample Organization is Ready", readyResource("organization", "acme"), 180_000);
    await eventually("Policy payments is Ready", readyResource("policy", "payments"), 180_000);
    const worker = await eventually(
      "Agent refund-worker is Ready",
      readyResource("agent", "refund-worker"),
      180_000,
    );
    await eventually("Agent invoice-bot is Ready", readyResource("agent", "invoice-bot"), 180_000);
    await eventually(
      "MCPServer refund-service is Ready",
      readyResource("mcpserver", "refund-service"),
      180_000,
    );
    await eventually("Tool issue-refund is Ready", readyResource("tool", "issue-refund"), 180_000);
    await eventually("MCPServer payments-mcp is Ready", readyResource("mcpserver", "payments-mcp"), 180_000);
    // Its tool's input schema was discovered from the payments server, which answers only the
    // credential the sample's Secret holds.
    await eventually("Tool send-payment is Ready", readyResource("tool", "send-payment"), 180_000);
    await eventually(
      "WebhookEndpoint payments-events is Ready",
      readyResource("webhookendpoint", "payments-events"),
      180_000,
    );
    const hookSecret = (await cluster.get(["secret", "payments-webhook-secret", "-n", samplesNs])) as {
      data: Record<string, string>;
    };
    const signingSecret = Buffer.from(hookSecret.data["signing-secret"]!, "base64").toString();
    expect(signingSecret).toMatch(/^whsec_/);
    const secret = (await cluster.get([
      "secret",
      worker.status!.gatewayKey!.secretName,
      "-n",
      samplesNs,
    ])) as {
      data: Record<string, string>;
    };
    const key = Buffer.from(secret.data["api-key"]!, "base64").toString();
    const svc = (await cluster.get(["service", "countersign-gateway", "-n", ns])) as {
      spec: { clusterIP: string };
    };
    const res = await fetch(`http://${svc.spec.clusterIP}:8081/v1/authorize`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({
        tool: "refunds.issue",
        arguments: { amount: "20.00", currency: "USD" },
        idempotency_key: "samples-1",
      }),
    });
    const body = (await res.json()) as { receipt_id?: string };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ allowed: true, status: "authorized" });
    // The decision's receipt.created, delivered to hooks.example.com and signed with the Secret's value.
    const delivery = await eventually(
      "receipt.created reached the sample receiver",
      async () =>
        hookDeliveries.find((d) => {
          const event = JSON.parse(d.body) as { type?: string; data?: { receipt_id?: string } };
          return event.type === "receipt.created" && event.data?.receipt_id === body.receipt_id;
        }),
      180_000,
    );
    const verification = verifyWebhook(
      delivery.body,
      String(delivery.headers["service-signature"]),
      signingSecret,
      Date.now(),
    );
    expect(verification).toMatchObject({ valid: true });
  }, 600_000);
});

/**
 * Agents' decisions through the Gateway Service's cluster address (kube-proxy's rules on the node),
 * about five a second, until stopped. Each decision is retried with its idempotency key on a
 * retryable answer (503 or 429 after their Retry-After, or a connection closed before an answer),
 * as an agent does; a decision that ends otherwise than allowed is failed.
 */
function traffic(base: string, key: string, tool: string) {
  const answers: Record<string, number> = {};
  let decided = 0;
  const failed: string[] = [];
  let running = true;
  const loop = (async () => {
    for (let n = 0; running; n++) {
      const idempotencyKey = `traffic-${randomBytes(4).toString("hex")}-${n}`;
      let outcome = "";
      for (let attempt = 0; attempt < 20; attempt++) {
        try {
          const res = await fetch(`${base}/v1/authorize`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
            body: JSON.stringify({ tool, arguments: { amount: 20 }, idempotency_key: idempotencyKey }),
            signal: AbortSignal.timeout(15_000),
          });
          answers[res.status] = (answers[res.status] ?? 0) + 1;
          const body = (await res.json()) as { allowed?: boolean };
          if (res.status === 503 || res.status === 429) {
            const after = Number(res.headers.get("retry-after") ?? "0");
            await new Promise((r) => setTimeout(r, Math.max(250, Math.min(after, 5) * 1000)));
            continue;
          }
          outcome =
            res.status === 200 && body.allowed === true ? "allowed" : `${res.status} ${JSON.stringify(body)}`;
        } catch (error) {
          answers.connection = (answers.connection ?? 0) + 1;
          await new Promise((r) => setTimeout(r, 250));
          outcome = `no answer: ${String((error as Error).cause ?? error)}`;
          continue;
        }
        break;
      }
      if (outcome === "allowed") decided++;
      else failed.push(outcome);
      // About five decisions a second: an agent's pace, well under the plan's rate limit.
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { decided, failed, answers };
    },
  };
}

describe("operations on the live cluster", () => {
  const serviceBase = async () => {
    const svc = (await cluster.get(["service", "countersign-gateway", "-n", ns])) as {
      spec: { clusterIP: string };
    };
    return `http://${svc.spec.clusterIP}:8081`;
  };

  it("helm upgrade to a new image tag under traffic: no failed decision, a Gateway pod Ready throughout (the PDB's minimum), the migrations hook run once more", async () => {
    await cluster.tagImage(`${image}:dev`, `${image}:e2e-2`);
    const load = traffic(await serviceBase(), world.key, world.tool);
    let fewestReady = Infinity;
    let watching = true;
    const watch = (async () => {
      while (watching) {
        fewestReady = Math.min(fewestReady, (await podsOf("gateway")).filter(ready).length);
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    const res = await helm(
      [
        "upgrade",
        "countersign",
        chartDir,
        "--namespace",
        ns,
        ...values,
        "--set",
        "image.tag=e2e-2",
        "--wait",
        "--timeout",
        "10m",
      ],
      { kubeconfig: cluster.kubeconfig },
    );
    // A few more seconds of calls on the new pods only.
    await new Promise((r) => setTimeout(r, 3000));
    watching = false;
    await watch;
    const result = await load.stop();
    console.log(
      `helm upgrade under traffic: ${result.decided} decisions, answers ${JSON.stringify(result.answers)}`,
    );
    expect(res.code, res.stderr).toBe(0);
    expect(result.failed, JSON.stringify(result.answers)).toEqual([]);
    expect(result.decided).toBeGreaterThan(10);
    expect(fewestReady).toBeGreaterThanOrEqual(1);
    // Every pod left (the replaced ones are gone once terminated) runs the new tag.
    await eventually(
      "every pod of the release runs the new tag",
      async () => {
        for (const component of ["api", "gateway", "operator"]) {
          const pods = await podsOf(component);
          // The pods' spec (the status names the image by whichever of its tags containerd lists first).
          if (pods.some((p) => !p.spec.containers[0]?.image.endsWith(":e2e-2"))) return false;
        }
        return true;
      },
      120_000,
    );
    const events = (await cluster.get(["events", "-n", ns, "--field-selector", "involvedObject.kind=Job"]))
      .items as { involvedObject: { name: string }; reason: string; count?: number }[];
    const created = events
      .filter((e) => e.involvedObject.name === "countersign-migrations" && e.reason === "SuccessfulCreate")
      .reduce((sum, e) => sum + (e.count ?? 1), 0);
    expect(created).toBe(2);
  }, 720_000);

  it("a Gateway pod deleted under traffic: only retryable answers, every decision made", async () => {
    const load = traffic(await serviceBase(), world.key, world.tool);
    await new Promise((r) => setTimeout(r, 2000));
    const victim = (await podsOf("gateway")).filter(ready)[0]!.metadata.name;
    await cluster.kubectlOk(["delete", "pod", victim, "-n", ns, "--wait=true"]);
    await eventually(
      "two Gateway pods Ready again",
      async () => (await podsOf("gateway")).filter(ready).length === 2,
      180_000,
    );
    const result = await load.stop();
    expect(result.failed, JSON.stringify(result.answers)).toEqual([]);
    expect(result.decided).toBeGreaterThan(5);
    console.log(
      `Gateway pod deleted under traffic: ${result.decided} decisions, answers ${JSON.stringify(result.answers)}`,
    );
    // Nothing but decisions and retryable answers.
    expect(
      Object.keys(result.answers).filter((s) => !["200", "429", "503", "connection"].includes(s)),
    ).toEqual([]);
  }, 300_000);

  it("the leading operator deleted: the other takes the Lease and reconciliation goes on", async () => {
    const leaseOf = async () =>
      (
        (await cluster.get(["lease", "countersign-operator", "-n", ns])) as {
          spec: { holderIdentity?: string };
        }
      ).spec.holderIdentity ?? "";
    const leader = await leaseOf();
    const others = (await podsOf("operator")).map((p) => p.metadata.name).filter((n) => n !== leader);
    expect(others.length).toBe(1);
    // The sample Organization the operator reconciled: a change after the handover is reconciled too.
    const observed = async () => {
      const o = (await cluster.get(["organization.countersign.dev/acme", "-n", "payments-team"])) as {
        metadata: { generation: number };
        status?: { conditions?: { type: string; observedGeneration?: number }[] };
      };
      const c = o.status?.conditions?.find((x) => x.type === "Ready");
      return c?.observedGeneration === o.metadata.generation ? o.metadata.generation : undefined;
    };
    const first = await eventually("the Organization reconciled by the leader", observed, 120_000);
    await cluster.kubectlOk(["delete", "pod", leader, "-n", ns, "--wait=true"]);
    const next = await eventually(
      "another operator holds the Lease",
      async () => {
        const holder = await leaseOf();
        return holder !== leader && holder !== "" && holder;
      },
      120_000,
    );
    expect(others).toContain(next);
    await cluster.kubectlOk([
      "patch",
      "organization.countersign.dev/acme",
      "-n",
      "payments-team",
      "--type=merge",
      "-p",
      JSON.stringify({ spec: { settings: { approvalTtlSeconds: 1800 } } }),
    ]);
    const second = await eventually(
      "the change reconciled by the new leader",
      async () => {
        const g = await observed();
        return g !== undefined && g > first && g;
      },
      120_000,
    );
    expect(second).toBe(first + 1);
  }, 360_000);

  it("helm uninstall leaves no pod of the release and keeps the CRDs", async () => {
    await cluster.kubectlOk(["delete", "namespace", "payments-team", "--wait=true"], undefined);
    const res = await helm(["uninstall", "countersign", "--namespace", ns, "--wait", "--timeout", "5m"], {
      kubeconfig: cluster.kubeconfig,
    });
    expect(res.code, res.stderr).toBe(0);
    await eventually(
      "no pod left in the release's namespace",
      async () => ((await cluster.get(["pods", "-n", ns])).items ?? []).length === 0,
      180_000,
    );
    const crds = (await cluster.get(["crd", "-l", "app.kubernetes.io/name=countersign"])).items ?? [];
    expect(crds.length).toBeGreaterThan(0);
  }, 300_000);
});
