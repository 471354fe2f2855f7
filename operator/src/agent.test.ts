/**
 * config/samples/ through the operator to a decision: against a real kube-apiserver, a real Cloud
 * API (reviewing the operator's ServiceAccount token through the real TokenReview API) and a real
 * Gateway process. The operator runs under exactly the checked-in ClusterRole (impersonation), is
 * bound by the owner as admin with allow_admin_changes, signs the Agents' delegations with the
 * principal key from the Organization's Secret and writes their gateway keys to Secrets; the key
 * read back from a Secret gets a decision. Then rotation, delegation drift, the policy left to a
 * person without the grant, a missing principal key, and `kubectl delete -f config/samples/`.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import type { ControlPlane } from "../../test/control-plane/index.js";
import type { Browser, CloudApi } from "../../test/fixtures/cloud-api.js";
import { newPrincipalWithPem, signDelegation, type TestIdentity } from "../../test/fixtures/identities.js";
import { applyObject, conditionOf, eventually, kubectlJson, kubectlOk } from "../../test/fixtures/kube.js";
import { operatorUsername, type OperatorProcess } from "../../test/fixtures/operator.js";
import { startOperatorWorld, type OperatorWorld } from "../../test/fixtures/operator-world.js";
import {
  authorizeAt,
  startGatewayProcess,
  type GatewayProcess,
} from "../../test/multi-replica/gateway-process.js";
import type { JsonBody } from "../../test/fixtures/json.js";

const namespace = "payments-team";
const samplesDir = fileURLToPath(new URL("../../config/samples/", import.meta.url));
let world: OperatorWorld;
let plane: ControlPlane;
let api: CloudApi;
let owner: Browser;
let orgId: string;
let principal: TestIdentity;
let principalPem: string;
let gateway: GatewayProcess;
let operator: OperatorProcess;

/** The sample documents, the Organization pointed at the organization the owner made. */
function samples(): Record<string, unknown>[] {
  return readdirSync(samplesDir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .flatMap((f) => parseAllDocuments(readFileSync(`${samplesDir}${f}`, "utf8")).map((d) => d.toJSON()))
    .map((o) => (o.kind === "Organization" ? { ...o, spec: { ...o.spec, organizationId: orgId } } : o));
}

const get = (kind: string, name: string) =>
  kubectlJson(plane, ["get", `${kind}.countersign.dev/${name}`, "-n", namespace]);
const secretValue = async (name: string, key: string): Promise<string | undefined> => {
  const res = await plane.kubectl(["get", "secret", name, "-n", namespace, "-o", "json"]);
  if (res.code !== 0) return undefined;
  const data = JSON.parse(res.stdout).data?.[key];
  return data ? Buffer.from(data, "base64").toString("utf8") : undefined;
};
const agentsByName = async (): Promise<Record<string, JsonBody>> =>
  Object.fromEntries(
    (await owner.get(`/orgs/${orgId}/agents?limit=100`)).body.items.map((a: { name: string }) => [a.name, a]),
  );
const delegationsOf = async (agentId: string): Promise<JsonBody[]> =>
  (await owner.get(`/orgs/${orgId}/agents/${agentId}/delegations?limit=100`)).body.items;
const ready = async (kind: string, name: string) => {
  const o = await get(kind, name);
  return conditionOf(o, "Ready")?.status === "True" && o;
};
const refund = (key: string, idempotencyKey: string) =>
  authorizeAt(gateway.url, key, {
    tool: "refunds.issue",
    arguments: { amount: "20.00", currency: "USD" },
    idempotency_key: idempotencyKey,
  });

/** The principal's key backup, as the sample Organization names it. */
const principalSecret = () => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "org-principal", namespace },
  stringData: { "private-key.pem": principalPem },
});

beforeAll(async () => {
  world = await startOperatorWorld({ namespace, allowAdminChanges: true });
  ({ plane, api, owner, orgId } = world);
  ({ identity: principal, pem: principalPem } = newPrincipalWithPem(orgId));
  expect((await owner.post(`/orgs/${orgId}/principal`, { document: principal.documents[0] })).status).toBe(
    201,
  );
  // The Secrets a person creates: the principal's key backup and the MCP server's credential.
  await applyObject(plane, principalSecret());
  await kubectlOk(plane, [
    "create",
    "secret",
    "generic",
    "payments-mcp-credential",
    "-n",
    namespace,
    "--from-literal=authorization=Bearer upstream-token",
  ]);
  gateway = await startGatewayProcess({
    databaseUrl: world.db.url,
    keyHashSecret: api.keyHashSecret,
    signingKey: randomBytes(32),
  });
  operator = world.startOperator("operator-a");
}, 180_000);

afterAll(async () => {
  await gateway?.stop();
  await world?.stop();
});

describe("config/samples/ through the operator", { timeout: 150_000 }, () => {
  let refundKey: string;

  it("become Cloud API objects, and the gateway key the operator wrote to the Agent's Secret gets a decision from a Gateway", async () => {
    for (const object of samples()) await applyObject(plane, object);
    const worker = await eventually("refund-worker Ready", () => ready("agent", "refund-worker"), 120_000);
    const bot = await eventually("invoice-bot Ready", () => ready("agent", "invoice-bot"));
    await eventually("the tool Ready", () => ready("tool", "issue-refund"));

    // The Cloud API side: both agents decided by the sample policy, each with its delegation signed by the principal.
    const agents = await agentsByName();
    expect(agents["Invoice bot"]).toMatchObject({
      id: bot.status.agentId,
      status: "active",
      policy: { name: "Payments" },
    });
    expect(agents["refund-worker"]).toMatchObject({
      id: worker.status.agentId,
      policy: { name: "Payments" },
    });
    const [delegation] = await delegationsOf(bot.status.agentId);
    expect(delegation).toMatchObject({
      state: "active",
      permissions: ["payments.send", "invoices.*"],
      expires_at: "2027-12-31T00:00:00.000Z",
    });
    expect(delegation.object.body.actor).toBe(principal.kid);
    expect(bot.status.delegations).toEqual([
      { name: "payments", id: delegation.id, expiresAt: "2027-12-31T00:00:00Z" },
    ]);
    expect(conditionOf(bot, "DelegationValid")).toMatchObject({ status: "True", reason: "Signed" });
    const tool = (
      await owner.get(`/orgs/${orgId}/tools/${(await get("tool", "issue-refund")).status.toolId}`)
    ).body.tool;
    expect(tool).toMatchObject({ enabled: true, authorization: { state: "authorized" } });

    // The key is in the Secret only: status carries its record, never the key.
    refundKey = (await secretValue("refund-worker-gateway-key", "api-key"))!;
    expect(refundKey).toBeTruthy();
    expect(worker.status.gatewayKey).toMatchObject({
      secretName: "refund-worker-gateway-key",
      environment: "test",
    });
    expect(refundKey).toContain(`_${worker.status.gatewayKey.prefix}_`);
    expect(JSON.stringify(worker)).not.toContain(refundKey);
    const keys = (await owner.get(`/orgs/${orgId}/api-keys?kind=gateway`)).body.items;
    expect(keys.filter((k: { agent_id: string }) => k.agent_id === worker.status.agentId)).toHaveLength(1);

    // A real decision with the key from the Secret: allowed by the sample policy's refunds rule.
    const allowed = await refund(refundKey, "samples-1");
    expect(allowed.status).toBe(200);
    expect(allowed.body).toMatchObject({ status: "authorized", allowed: true });
    // invoice-bot's delegation does not grant refunds: its key from its Secret is refused NO_DELEGATION.
    const botKey = (await secretValue("invoice-bot-gateway-key", "api-key"))!;
    const refused = await refund(botKey, "samples-2");
    expect(refused.body).toMatchObject({ allowed: false, code: "NO_DELEGATION" });

    // What `kubectl get agents` shows.
    const table = await kubectlOk(plane, ["get", "agents", "-n", namespace]);
    expect(table).toMatch(/refund-worker\s+payments\s+false\s+refund-worker-gateway-key\s+True/);
    expect(operator.output()).not.toContain(refundKey);
  });

  it("marks every record it writes with the custom resource that manages it; only the operator can name one", async () => {
    const managed = async (path: string, key: string) =>
      (await owner.get(`/orgs/${orgId}/${path}`)).body[key];
    const worker = await get("agent", "refund-worker");
    const agentPath = `/orgs/${orgId}/agents/${worker.status.agentId}`;
    expect((await owner.get(agentPath)).body.agent.managed_by).toEqual({
      kind: "Agent",
      namespace,
      name: "refund-worker",
    });
    // Lists carry it too, and each of the five kinds names its own resource.
    expect((await agentsByName())["Invoice bot"]!.managed_by).toEqual({
      kind: "Agent",
      namespace,
      name: "invoice-bot",
    });
    await eventually("the webhook endpoint Ready", () => ready("webhookendpoint", "payments-events"));
    await eventually("the policy Ready", () => ready("policy", "payments"));
    const ids = {
      tool: (await get("tool", "issue-refund")).status.toolId,
      server: (await get("mcpserver", "payments-mcp")).status.mcpServerId,
      policy: (await get("policy", "payments")).status.policyId,
      webhook: (await get("webhookendpoint", "payments-events")).status.webhookId,
    };
    expect((await managed(`tools/${ids.tool}`, "tool")).managed_by).toEqual({
      kind: "Tool",
      namespace,
      name: "issue-refund",
    });
    expect((await managed(`mcp-servers/${ids.server}`, "mcp_server")).managed_by).toEqual({
      kind: "MCPServer",
      namespace,
      name: "payments-mcp",
    });
    expect((await managed(`policies/${ids.policy}`, "policy")).managed_by).toEqual({
      kind: "Policy",
      namespace,
      name: "payments",
    });
    expect((await managed(`webhooks/${ids.webhook}`, "webhook")).managed_by).toEqual({
      kind: "WebhookEndpoint",
      namespace,
      name: "payments-events",
    });
    // The audit log names the operator binding's identity as the actor of its writes.
    const audit = (await owner.get(`/orgs/${orgId}/audit?action=agent.created&limit=100`)).body.items;
    expect(audit.find((e: JsonBody) => e.target.id === worker.status.agentId)?.actor).toMatchObject({
      type: "operator",
    });
    expect(JSON.stringify(audit)).toContain(operatorUsername);

    // A person cannot forge a marker: the header is refused and nothing changes.
    const forged = await owner.patch(
      agentPath,
      { name: "renamed by hand" },
      { "countersign-managed-by": "Agent/elsewhere/not-this-one" },
    );
    expect(forged.status).toBe(403);
    expect(forged.body.error.code).toBe("FORBIDDEN");
    const unchanged = (await owner.get(agentPath)).body.agent;
    expect(unchanged).toMatchObject({
      name: "refund-worker",
      managed_by: { namespace, name: "refund-worker" },
    });
    // The operator itself must name a resource of the record's kind, in the header's exact form.
    const operatorCaller = api.browser({ origin: null });
    const asOperator = { authorization: `Bearer ${world.identity.token}` };
    for (const header of ["Policy/payments-team/payments", "Agent/payments-team", "Agent/Payments/x"]) {
      const bad = await operatorCaller.patch(
        agentPath,
        { name: "renamed by operator" },
        {
          ...asOperator,
          "countersign-managed-by": header,
        },
      );
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe("VALIDATION_FAILED");
    }
    expect((await owner.get(agentPath)).body.agent.name).toBe("refund-worker");
    // A person's own edit (here: disabling) keeps the marker: the operator still manages it and repairs the drift.
    const edited = await owner.patch(agentPath, { status: "disabled" });
    expect(edited.body.agent).toMatchObject({ status: "disabled", managed_by: { name: "refund-worker" } });
    await eventually(
      "the operator repairs the drift",
      async () => (await owner.get(agentPath)).body.agent.status === "active",
      60_000,
    );
  });

  it("rotates the gateway key on request: the new key from the Secret decides, the old one is refused", async () => {
    await kubectlOk(plane, [
      "annotate",
      "agent.countersign.dev/refund-worker",
      "-n",
      namespace,
      "countersign.dev/rotate-gateway-key=r1",
    ]);
    const rotated = await eventually("a new key in the Secret", async () => {
      const v = await secretValue("refund-worker-gateway-key", "api-key");
      return v && v !== refundKey && v;
    });
    await eventually(
      "rotation recorded in status",
      async () => (await get("agent", "refund-worker")).status.gatewayKey?.rotation === "r1",
    );
    expect((await refund(refundKey, "rotation-old")).status).toBe(401);
    expect((await refund(rotated, "rotation-new")).body).toMatchObject({ status: "authorized" });
    // A resync does not rotate again.
    await new Promise((r) => setTimeout(r, 5_000));
    expect(await secretValue("refund-worker-gateway-key", "api-key")).toBe(rotated);
    refundKey = rotated;
  });

  it("keeps delegations as Git says: a changed entry is re-signed before the old one is revoked, one added in the dashboard is revoked", async () => {
    const agentId = (await get("agent", "refund-worker")).status.agentId;
    const [before] = await delegationsOf(agentId);
    // Drift made outside Git: an owner delegates db.drop in the dashboard.
    const extra = signDelegation(principal, {
      organization_id: orgId,
      agent_id: agentId,
      permissions: ["db.drop"],
      expires_at: new Date(Date.now() + 86400_000),
    });
    expect(
      (await owner.post(`/orgs/${orgId}/agents/${agentId}/delegations`, { delegation: extra })).status,
    ).toBe(201);
    // And Git changes the refunds entry.
    const worker = samples().find(
      (o) => o.kind === "Agent" && (o.metadata as { name: string }).name === "refund-worker",
    ) as { spec: { delegations: { actions: string[] }[] } };
    worker.spec.delegations[0]!.actions = ["refunds.issue", "refunds.partial"];
    await applyObject(plane, worker);
    const active = await eventually("one active delegation, the new one", async () => {
      const list = (await delegationsOf(agentId)).filter((d) => d.state === "active");
      return list.length === 1 && list[0].permissions.includes("refunds.partial") && list;
    });
    const all = await delegationsOf(agentId);
    expect(all.find((d) => d.id === before.id).state).toBe("revoked");
    expect(all.find((d) => d.object_id === extra.id).state).toBe("revoked");
    expect(all.find((d) => d.object_id === extra.id).revocation.body.actor).toBe(principal.kid);
    await eventually(
      "status names the new delegation",
      async () => (await get("agent", "refund-worker")).status.delegations?.[0]?.id === active[0].id,
    );
    expect((await refund(refundKey, "after-resign")).body).toMatchObject({ status: "authorized" });
  });

  it("without allow_admin_changes leaves the policy to a person, says so, and follows once a person assigns it", async () => {
    await world.bind(false);
    await applyObject(plane, {
      apiVersion: "countersign.dev/v1alpha1",
      kind: "Agent",
      metadata: { name: "audit-bot", namespace },
      spec: { policyRef: { name: "payments" } },
    });
    const waiting = await eventually("audit-bot awaiting an admin", async () => {
      const o = await get("agent", "audit-bot");
      return conditionOf(o, "PolicyAssigned")?.reason === "AdminRequired" && o;
    });
    expect(conditionOf(waiting, "Ready")).toMatchObject({ status: "False", reason: "AdminRequired" });
    expect(conditionOf(waiting, "PolicyAssigned")!.message).toContain("allow_admin_changes");
    const agentId = waiting.status.agentId;
    expect((await owner.get(`/orgs/${orgId}/agents/${agentId}`)).body.agent.policy).toBeNull();
    // A person assigns it in the dashboard; the operator sees the spec satisfied.
    const policyId = (await get("policy", "payments")).status.policyId;
    expect((await owner.patch(`/orgs/${orgId}/agents/${agentId}`, { policy_id: policyId })).status).toBe(200);
    await eventually("audit-bot Ready", () => ready("agent", "audit-bot"));
    await world.bind(true);
  });

  it("shows a missing principal key and signs nothing until it is back", async () => {
    await kubectlOk(plane, ["delete", "secret", "org-principal", "-n", namespace]);
    await applyObject(plane, {
      apiVersion: "countersign.dev/v1alpha1",
      kind: "Agent",
      metadata: { name: "batch-bot", namespace },
      spec: { delegations: [{ name: "batch", actions: ["batch.run"], expiresAt: "2027-01-31T00:00:00Z" }] },
    });
    const waiting = await eventually("batch-bot without its delegation", async () => {
      const o = await get("agent", "batch-bot");
      return conditionOf(o, "DelegationValid")?.reason === "PrincipalKeyUnavailable" && o;
    });
    expect(conditionOf(waiting, "DelegationValid")!.message).toContain("Secret org-principal does not exist");
    expect(await delegationsOf(waiting.status.agentId)).toEqual([]);
    await applyObject(plane, principalSecret());
    await eventually("batch-bot Ready", () => ready("agent", "batch-bot"));
    expect((await delegationsOf(waiting.status.agentId)).map((d) => d.permissions)).toEqual([["batch.run"]]);
  });

  it("kubectl delete -f config/samples/ cleans up the Cloud API side: keys and delegations revoked, agents disabled, servers and endpoint deleted", async () => {
    const before = await agentsByName();
    const webhookId = (await get("webhookendpoint", "payments-events")).status.webhookId;
    await kubectlOk(plane, ["delete", "agent", "audit-bot", "batch-bot", "-n", namespace]);
    await kubectlOk(plane, ["delete", "-f", samplesDir, "--wait=false"]);
    await eventually(
      "every sample resource gone",
      async () => {
        const left = await kubectlJson(plane, ["get", "countersign", "-n", namespace]);
        if (left.items.length > 0)
          throw new Error(
            `left: ${left.items.map((o: { kind: string; metadata: { name: string } }) => `${o.kind}/${o.metadata.name}`).join(", ")}`,
          );
        return true;
      },
      120_000,
    );
    // The decision-only integration has recorded actions: it stays in the Cloud API, its tool disabled.
    const kept = await eventually("the KeptInUse event", async () => {
      const events = await kubectlJson(plane, [
        "get",
        "events",
        "-n",
        namespace,
        "--field-selector",
        "reason=KeptInUse",
      ]);
      return events.items.length > 0 && events.items;
    });
    expect(kept[0].involvedObject).toMatchObject({ kind: "MCPServer", name: "refund-service" });
    const after = await agentsByName();
    for (const name of ["Invoice bot", "refund-worker"]) {
      expect(after[name].status).toBe("disabled");
      expect((await delegationsOf(before[name].id)).every((d) => d.state === "revoked")).toBe(true);
    }
    const keys = (await owner.get(`/orgs/${orgId}/api-keys?kind=gateway`)).body.items;
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((k: { state: string }) => k.state === "revoked")).toBe(true);
    expect((await refund(refundKey, "after-delete")).status).toBe(401);
    const servers = (await owner.get(`/orgs/${orgId}/mcp-servers`)).body.items;
    expect(servers.map((x: { name: string }) => x.name)).toEqual(["Refund service (decision only)"]);
    const tools = (await owner.get(`/orgs/${orgId}/tools?mcp_server_id=${servers[0].id}`)).body.items;
    expect(tools.map((t: { enabled: boolean }) => t.enabled)).toEqual([false]);
    expect((await owner.get(`/orgs/${orgId}/webhooks/${webhookId}`)).status).toBe(404);
    expect(await secretValue("refund-worker-gateway-key", "api-key")).toBeUndefined();
    // The principal's key backup is the person's Secret: left alone.
    expect(await secretValue("org-principal", "private-key.pem")).toBe(principalPem);
    expect(stringify(await kubectlJson(plane, ["get", "events", "-n", namespace]))).not.toContain(refundKey);
  });
});
