/**
 * The operator process against a real kube-apiserver and a real Cloud API: it runs under exactly
 * the ClusterRole of config/rbac/ (impersonating its ServiceAccount), authenticates to the Cloud
 * API with its ServiceAccount token (reviewed through the real TokenReview API), reconciles
 * Organizations, repairs drift on resync, survives an apiserver restart, and hands its Lease over
 * between two processes without a duplicate write.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import type { ControlPlane } from "../../test/control-plane/index.js";
import type { Browser, CloudApi } from "../../test/fixtures/cloud-api.js";
import {
  operatorNamespace,
  operatorUsername,
  type OperatorIdentity,
  type OperatorProcess,
} from "../../test/fixtures/operator.js";
import { startOperatorWorld, type OperatorWorld } from "../../test/fixtures/operator-world.js";
import { applyObject, conditionOf, eventually, kubectlJson } from "../../test/fixtures/kube.js";

const namespace = "payments-team";
let world: OperatorWorld;
let plane: ControlPlane;
let identity: OperatorIdentity;
let api: CloudApi;
let owner: Browser;
let orgId: string;

const getJson = (args: string[]) => kubectlJson(plane, args);

const organization = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: "countersign.dev/v1alpha1",
  kind: "Organization",
  metadata: { name, namespace },
  spec,
});

const webhook = (spec: Record<string, unknown>) => ({
  apiVersion: "countersign.dev/v1alpha1",
  kind: "WebhookEndpoint",
  metadata: { name: "payments-events", namespace },
  spec: { secretName: "payments-webhook-secret", ...spec },
});

const apply = (object: unknown) => applyObject(plane, object);

const condition = conditionOf;

async function auditUpdates(): Promise<Array<{ actor: { type: string; id: string } }>> {
  const res = await owner.get(`/orgs/${orgId}/audit?action=organization.updated&limit=100`);
  expect(res.status).toBe(200);
  return res.body.items;
}

async function leaseHolder(): Promise<string> {
  const lease = await getJson(["get", "lease", "countersign-operator", "-n", operatorNamespace]);
  return lease.spec.holderIdentity ?? "";
}

async function metricsOf(p: OperatorProcess): Promise<string> {
  return (await fetch(`http://127.0.0.1:${await p.healthPort}/metrics`)).text();
}

const start = (name: string): OperatorProcess => world.startOperator(name);

const samples = (file: string) => fileURLToPath(new URL(`../../config/samples/${file}`, import.meta.url));

beforeAll(async () => {
  world = await startOperatorWorld({ namespace });
  ({ plane, identity, api, owner, orgId } = world);
}, 180_000);

afterAll(async () => {
  await world?.stop();
});

describe("the operator's RBAC", () => {
  it("is exactly the checked-in ClusterRole: its resources yes, anything else no", async () => {
    const can = async (...args: string[]) =>
      (await plane.kubectl(["auth", "can-i", ...args], { kubeconfig: identity.kubeconfig })).stdout.trim();
    expect(await can("watch", "policies.countersign.dev", "-A")).toBe("yes");
    expect(await can("update", "policies.countersign.dev", "--subresource=status", "-n", namespace)).toBe(
      "yes",
    );
    expect(await can("create", "secrets", "-n", namespace)).toBe("yes");
    expect(await can("update", "leases.coordination.k8s.io", "-n", operatorNamespace)).toBe("yes");
    expect(await can("watch", "secrets", "-A")).toBe("yes");
    expect(await can("list", "configmaps", "-A")).toBe("no");
    expect(await can("delete", "policies.countersign.dev", "-n", namespace)).toBe("no");
    expect(await can("create", "pods", "-n", namespace)).toBe("no");
    expect(await can("create", "customresourcedefinitions.apiextensions.k8s.io")).toBe("no");
  });
});

describe("an operator process", { timeout: 120_000 }, () => {
  let first: OperatorProcess;

  it("takes the Lease, reconciles an Organization into the Cloud API as the operator, and reports Ready", async () => {
    first = start("operator-a");
    await eventually("operator-a leads", async () => (await leaseHolder()) === "operator-a");
    await apply(
      organization("acme", {
        organizationId: orgId,
        settings: { name: "Acme from Git", approvalTtlSeconds: 3600, agentDisclosure: "conditions" },
      }),
    );
    const acme = await eventually("acme Ready", async () => {
      const o = await getJson(["get", "organization.countersign.dev/acme", "-n", namespace]);
      return condition(o, "Ready")?.status === "True" && o;
    });
    expect(acme.status).toMatchObject({
      organizationName: "Acme from Git",
      observedGeneration: acme.metadata.generation,
    });
    expect(condition(acme, "Reconciled")).toMatchObject({
      status: "True",
      observedGeneration: acme.metadata.generation,
    });
    const org = (await owner.get(`/orgs/${orgId}`)).body.organization;
    expect(org).toMatchObject({
      name: "Acme from Git",
      approval_ttl_seconds: 3600,
      agent_disclosure: "conditions",
    });
    const updates = await auditUpdates();
    expect(updates).toHaveLength(1);
    expect(updates[0]!.actor).toMatchObject({ type: "operator", id: operatorUsername });
    const events = await getJson([
      "get",
      "events",
      "-n",
      namespace,
      "--field-selector",
      "involvedObject.name=acme",
    ]);
    expect(events.items.map((e: { reason: string }) => e.reason)).toContain("SettingsUpdated");
  });

  it("repairs a change made outside Git on the next resync, with one write", async () => {
    expect((await owner.patch(`/orgs/${orgId}`, { name: "Renamed in the dashboard" })).status).toBe(200);
    await eventually(
      "name restored",
      async () => (await owner.get(`/orgs/${orgId}`)).body.organization.name === "Acme from Git",
    );
    const updates = await auditUpdates();
    expect(updates.filter((u) => u.actor.type === "operator")).toHaveLength(2);
  });

  it("reports an organization it is not bound to as not Ready, with a Warning event, and writes nothing", async () => {
    const before = await auditUpdates();
    await apply(
      organization("stranger", {
        organizationId: "5b0c6d1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e",
        settings: { name: "Nope" },
      }),
    );
    const stranger = await eventually("stranger refused", async () => {
      const o = await getJson(["get", "organization.countersign.dev/stranger", "-n", namespace]);
      return condition(o, "Ready")?.status === "False" && o;
    });
    expect(condition(stranger, "Ready")).toMatchObject({ reason: "BindingMissing" });
    expect(condition(stranger, "Ready")!.message).toMatch(
      /does not exist or the operator is not bound to it/,
    );
    const events = await eventually("warning event", async () => {
      const list = await getJson([
        "get",
        "events",
        "-n",
        namespace,
        "--field-selector",
        "involvedObject.name=stranger",
      ]);
      return list.items.length > 0 && list.items;
    });
    expect(events[0]).toMatchObject({ type: "Warning", reason: "BindingMissing" });
    expect(await auditUpdates()).toHaveLength(before.length);
  });

  it("keeps working after the apiserver restarts: the same process reconciles the next change", async () => {
    await plane.restartApiServer();
    await apply(
      organization("acme", {
        organizationId: orgId,
        settings: { name: "After the restart", approvalTtlSeconds: 3600, agentDisclosure: "conditions" },
      }),
    );
    await eventually(
      "change after restart reconciled",
      async () => (await owner.get(`/orgs/${orgId}`)).body.organization.name === "After the restart",
    );
    expect(first.child.exitCode).toBeNull();
  });

  it("serves /healthz and /metrics with reconciles by kind and result, queue depth and last sync", async () => {
    const port = await first.healthPort;
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    const metrics = await metricsOf(first);
    expect(metrics).toMatch(
      /countersign_operator_reconciles_total\{kind="Organization",result="success"\} [1-9]/,
    );
    expect(metrics).toMatch(/countersign_operator_queue_depth\{kind="Organization"\} \d/);
    expect(metrics).toMatch(
      /countersign_operator_last_successful_sync_timestamp_seconds\{kind="Organization"\} \d/,
    );
    expect(metrics).toMatch(/countersign_operator_leader 1/);
  });

  it("hands the Lease to a second process without a duplicate write", async () => {
    const second = start("operator-b");
    const secondPort = await second.healthPort;
    expect((await fetch(`http://127.0.0.1:${secondPort}/healthz`)).status).toBe(200);
    expect(await leaseHolder()).toBe("operator-a");

    // Both running: one change gives exactly one write, by the leader only.
    const before = (await auditUpdates()).length;
    await apply(
      organization("acme", {
        organizationId: orgId,
        settings: { name: "Two replicas", approvalTtlSeconds: 3600, agentDisclosure: "conditions" },
      }),
    );
    await eventually(
      "change reconciled",
      async () => (await owner.get(`/orgs/${orgId}`)).body.organization.name === "Two replicas",
    );
    await new Promise((r) => setTimeout(r, 5000)); // two more resyncs of the leader: still one write
    expect(await auditUpdates()).toHaveLength(before + 1);
    const standby = await metricsOf(second);
    expect(standby).toMatch(/countersign_operator_leader 0/);
    expect(standby).not.toMatch(/countersign_operator_reconciles_total\{/);

    // The leader stops cleanly and releases the Lease; the standby takes over and reconciles.
    expect(await first.stop()).toBe(0);
    await eventually("operator-b leads", async () => (await leaseHolder()) === "operator-b", 30_000);
    await apply(
      organization("acme", {
        organizationId: orgId,
        settings: { name: "After the handover", approvalTtlSeconds: 3600, agentDisclosure: "conditions" },
      }),
    );
    await eventually(
      "change reconciled by b",
      async () => (await owner.get(`/orgs/${orgId}`)).body.organization.name === "After the handover",
    );
    await new Promise((r) => setTimeout(r, 5000));
    expect(await auditUpdates()).toHaveLength(before + 2);
    expect(await metricsOf(second)).toMatch(/countersign_operator_leader 1/);
    const lease = await getJson(["get", "lease", "countersign-operator", "-n", operatorNamespace]);
    expect(lease.spec).toMatchObject({ holderIdentity: "operator-b", leaseDurationSeconds: 15 });
    expect(lease.spec.leaseTransitions).toBeGreaterThanOrEqual(1);
  });

  it("creates a WebhookEndpoint's endpoint with its finalizer and writes the signing secret only to the Secret", async () => {
    await plane.kubectl(["delete", "organization.countersign.dev/stranger", "-n", namespace]);
    await apply(
      webhook({
        url: "https://hooks.example.com/countersign",
        events: ["receipt.created", "policy.activated"],
      }),
    );
    const ready = await eventually("webhook Ready", async () => {
      const o = await getJson(["get", "webhookendpoint.countersign.dev/payments-events", "-n", namespace]);
      return condition(o, "Ready")?.status === "True" && o;
    });
    expect(ready.metadata.finalizers).toEqual(["countersign.dev/finalizer"]);
    const id = ready.status.webhookId;
    const endpoint = (await owner.get(`/orgs/${orgId}/webhooks/${id}`)).body.webhook;
    expect(endpoint).toMatchObject({
      url: "https://hooks.example.com/countersign",
      enabled: true,
      event_types: ["receipt.created", "policy.activated"],
    });
    expect(ready.status.deliveries).toEqual({ pending: 0, failed: 0 });
    const secret = await getJson(["get", "secret", "payments-webhook-secret", "-n", namespace]);
    const signing = Buffer.from(secret.data["signing-secret"], "base64").toString();
    expect(signing).toMatch(/^whsec_/);
    expect(secret.metadata.ownerReferences[0]).toMatchObject({
      kind: "WebhookEndpoint",
      name: "payments-events",
    });
    expect(JSON.stringify(ready)).not.toContain(signing);
    const events = await getJson([
      "get",
      "events",
      "-n",
      namespace,
      "--field-selector",
      "involvedObject.name=payments-events",
    ]);
    expect(JSON.stringify(events)).not.toContain(signing);
    expect(events.items.map((e: { reason: string }) => e.reason)).toContain("Created");
    const list = (await owner.get(`/orgs/${orgId}/webhooks`)).body.items;
    expect(list).toHaveLength(1);
  });

  it("repairs a WebhookEndpoint changed or deleted outside Git, and rotates its secret on request", async () => {
    const first = await getJson(["get", "webhookendpoint.countersign.dev/payments-events", "-n", namespace]);
    const id = first.status.webhookId;
    expect(
      (await owner.patch(`/orgs/${orgId}/webhooks/${id}`, { enabled: false, event_types: ["action.denied"] }))
        .status,
    ).toBe(200);
    await eventually("drift repaired", async () => {
      const e = (await owner.get(`/orgs/${orgId}/webhooks/${id}`)).body.webhook;
      return e.enabled === true && e.event_types.length === 2;
    });

    const before = Buffer.from(
      (await getJson(["get", "secret", "payments-webhook-secret", "-n", namespace])).data["signing-secret"],
      "base64",
    ).toString();
    await plane.kubectl([
      "annotate",
      "webhookendpoint.countersign.dev/payments-events",
      "-n",
      namespace,
      "countersign.dev/rotate-signing-secret=1",
    ]);
    await eventually("secret rotated", async () => {
      const s = await getJson(["get", "secret", "payments-webhook-secret", "-n", namespace]);
      return Buffer.from(s.data["signing-secret"], "base64").toString() !== before;
    });
    const rotated = (await owner.get(`/orgs/${orgId}/webhooks/${id}`)).body.webhook;
    expect(rotated.previous_secret_expires_at).not.toBeNull();

    expect((await owner.delete(`/orgs/${orgId}/webhooks/${id}`)).status).toBe(204);
    const recreated = await eventually("endpoint recreated", async () => {
      const o = await getJson(["get", "webhookendpoint.countersign.dev/payments-events", "-n", namespace]);
      return o.status.webhookId !== id && o;
    });
    expect((await owner.get(`/orgs/${orgId}/webhooks`)).body.items.map((e: { id: string }) => e.id)).toEqual([
      recreated.status.webhookId,
    ]);
  });

  it("shows a refusal of the Cloud API in status and changes nothing there", async () => {
    await apply({
      ...webhook({ url: "https://127.0.0.1/hook", events: ["receipt.created"] }),
      metadata: { name: "loopback", namespace },
    });
    const refused = await eventually("loopback refused", async () => {
      const o = await getJson(["get", "webhookendpoint.countersign.dev/loopback", "-n", namespace]);
      return condition(o, "Ready")?.status === "False" && o;
    });
    expect(condition(refused, "Ready")).toMatchObject({ reason: "Refused" });
    expect(condition(refused, "Ready")!.message).toMatch(/URL_NOT_ALLOWED/);
    expect((await owner.get(`/orgs/${orgId}/webhooks`)).body.items).toHaveLength(1);
  });

  it("deletes the Cloud API endpoint and the Secret before the finalizer lets the WebhookEndpoint go", async () => {
    const res = await plane.kubectl([
      "delete",
      "webhookendpoint.countersign.dev/payments-events",
      "webhookendpoint.countersign.dev/loopback",
      "-n",
      namespace,
      "--timeout=60s",
    ]);
    expect(res.code).toBe(0);
    expect((await owner.get(`/orgs/${orgId}/webhooks`)).body.items).toEqual([]);
    const secret = await plane.kubectl([
      "get",
      "secret",
      "payments-webhook-secret",
      "-n",
      namespace,
      "--ignore-not-found",
      "-o",
      "name",
    ]);
    expect(secret.stdout).toBe("");
  });

  it("creates a decision-only integration with a draft tool a person authorizes, and an MCP server with its credential from a Secret; removes them on deletion", async () => {
    const credential = `Bearer upstream-${randomBytes(8).toString("hex")}`;
    await plane.kubectl([
      "create",
      "secret",
      "generic",
      "payments-mcp-credential",
      "-n",
      namespace,
      `--from-literal=authorization=${credential}`,
    ]);
    // The MCP server's sample tool would be discovered from its (unreachable) upstream: only the server here.
    const mcpServerOnly = parseAllDocuments(readFileSync(samples("mcp-server.yaml"), "utf8"))
      .map((d) => d.toJS())
      .filter((o) => o.kind === "MCPServer");
    await plane.kubectl(["apply", "-f", samples("decision-only-tool.yaml")]);
    await plane.kubectl(["apply", "-f", "-"], { input: stringify(mcpServerOnly[0]) });
    const ready = async (name: string) =>
      eventually(`${name} Ready`, async () => {
        const o = await getJson(["get", `mcpserver.countersign.dev/${name}`, "-n", namespace]);
        return condition(o, "Ready")?.status === "True" && o;
      });
    const integration = await ready("refund-service");
    const server = await ready("payments-mcp");
    const servers = (await owner.get(`/orgs/${orgId}/mcp-servers`)).body.items;
    expect(servers.find((x: { id: string }) => x.id === integration.status.mcpServerId)).toMatchObject({
      kind: "decision_only",
      name: "Refund service (decision only)",
      url: null,
    });
    expect(servers.find((x: { id: string }) => x.id === server.status.mcpServerId)).toMatchObject({
      kind: "mcp",
      name: "Payments MCP",
      url: "https://payments-mcp.example.com/mcp",
      credential: { configured: true, version: 1 },
    });
    expect(JSON.stringify(server)).not.toContain(credential);

    // A new credential in the Secret is sent again; a rename made in the dashboard is undone.
    await plane
      .kubectl([
        "create",
        "secret",
        "generic",
        "payments-mcp-credential",
        "-n",
        namespace,
        "--from-literal=authorization=Bearer rotated",
        "--dry-run=client",
        "-o",
        "yaml",
      ])
      .then((r) => plane.kubectl(["apply", "-f", "-"], { input: r.stdout }));
    expect(
      (await owner.patch(`/orgs/${orgId}/mcp-servers/${server.status.mcpServerId}`, { name: "Renamed" }))
        .status,
    ).toBe(200);
    // A reconcile refused or in conflict meanwhile is retried after up to 60 s: wait past one retry.
    await eventually(
      "credential re-sent and name restored",
      async () => {
        const s = (await owner.get(`/orgs/${orgId}/mcp-servers/${server.status.mcpServerId}`)).body
          .mcp_server;
        return s.credential.version === 2 && s.name === "Payments MCP";
      },
      150_000,
    );

    // The decision-only tool: created as a disabled draft, waiting for a person to authorize it.
    const awaiting = await eventually("tool awaiting authorization", async () => {
      const o = await getJson(["get", "tool.countersign.dev/issue-refund", "-n", namespace]);
      return condition(o, "Authorized")?.reason === "AdminApprovalRequired" && o;
    });
    expect(condition(awaiting, "Ready")).toMatchObject({ status: "False", reason: "AwaitingAuthorization" });
    const toolPath = `/orgs/${orgId}/tools/${awaiting.status.toolId}`;
    expect((await owner.get(toolPath)).body.tool).toMatchObject({
      mcp_server_id: integration.status.mcpServerId,
      exposed_name: "refunds.issue",
      action: "refunds.issue",
      enabled: false,
      amount_mapping: { amount_path: "$.amount", currency_path: "$.currency" },
    });
    const binding = (await owner.get(toolPath)).body.tool.binding.digest;
    expect((await owner.patch(toolPath, { enabled: true })).status).toBe(200);
    expect((await owner.post(`${toolPath}/authorize`, { binding_digest: binding })).status).toBeLessThan(300);
    await eventually("tool Ready once authorized", async () => {
      const o = await getJson(["get", "tool.countersign.dev/issue-refund", "-n", namespace]);
      return condition(o, "Ready")?.status === "True" && condition(o, "Authorized")?.status === "True";
    });
    expect(
      (await plane.kubectl(["delete", "tool.countersign.dev/issue-refund", "-n", namespace, "--timeout=60s"]))
        .code,
    ).toBe(0);
    expect((await owner.get(toolPath)).body.tool.enabled).toBe(false);

    const res = await plane.kubectl([
      "delete",
      "mcpserver.countersign.dev/refund-service",
      "mcpserver.countersign.dev/payments-mcp",
      "-n",
      namespace,
      "--timeout=60s",
    ]);
    expect(res.code).toBe(0);
    expect((await owner.get(`/orgs/${orgId}/mcp-servers`)).body.items).toEqual([]);
    for (const p of world.processes) expect(p.output()).not.toContain(credential);
  }, 300_000);

  it("never logs the ServiceAccount token", () => {
    for (const p of world.processes) expect(p.output()).not.toContain(identity.token);
    expect(api.logs.join("\n")).not.toContain(identity.token);
  });
});
