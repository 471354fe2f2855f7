/**
 * Exactly one Cloud API object per resource, whatever fails when (issue 44): the operator process,
 * against the real kube-apiserver and Cloud API, is SIGKILLed at each step of creating an Agent's
 * gateway key and a WebhookEndpoint (the creation answer lost, the rotation answer lost, just after
 * an answer arrived while the Secret and status are written, and at random moments), and what is
 * left is one live key and one endpoint, the ones the Secrets hold, and none after `kubectl
 * delete`. A Secret of the name the operator did not make gives SecretNotOwned and no object; a
 * rotation at the plan's key cap works; a rotation of 20 keys stays within one rate window (counted
 * at a proxy in front of the Cloud API: requests and 429s, never wall time).
 */
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ControlPlane } from "../../test/control-plane/index.js";
import type { Browser } from "../../test/fixtures/cloud-api.js";
import type { JsonBody } from "../../test/fixtures/json.js";
import { applyObject, conditionOf, eventually, kubectlJson, kubectlOk } from "../../test/fixtures/kube.js";
import type { OperatorProcess } from "../../test/fixtures/operator.js";
import { startOperatorWorld, type OperatorWorld } from "../../test/fixtures/operator-world.js";

const namespace = "crash-team";
let world: OperatorWorld;
let plane: ControlPlane;
let owner: Browser;
let orgId: string;
let proxy: CountingProxy;

/** What the proxy does to the answer of the first request `match` picks. */
type Trap = {
  match: (method: string, url: string) => boolean;
  /** `lost`: the operator is killed and never hears the answer; `after`: killed `delayMs` after hearing it. */
  mode: "lost" | "after";
  delayMs?: number;
};

interface CountingProxy {
  url: string;
  requests: number;
  throttled: number;
  arm(trap: Trap, victim: OperatorProcess): Promise<void>;
  reset(): void;
  close(): Promise<void>;
}

/** A proxy in front of the Cloud API that counts requests and 429s and SIGKILLs the operator on a trap. */
async function startProxy(target: string): Promise<CountingProxy> {
  let armed: { trap: Trap; victim: OperatorProcess; sprung: () => void } | undefined;
  const kill = (p: OperatorProcess) => p.child.kill("SIGKILL");
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      p.requests++;
      const hit = armed && armed.trap.match(req.method!, req.url!) ? armed : undefined;
      if (hit) armed = undefined;
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(
          ([k]) => !["host", "connection", "content-length", "transfer-encoding"].includes(k),
        ) as Array<[string, string]>,
      );
      let up: Response;
      try {
        up = await fetch(new URL(req.url!, target), {
          method: req.method,
          headers,
          body: chunks.length ? Buffer.concat(chunks) : undefined,
        });
      } catch {
        res.destroy();
        return;
      }
      const body = Buffer.from(await up.arrayBuffer());
      if (up.status === 429) p.throttled++;
      if (hit?.trap.mode === "lost") {
        // The Cloud API did the work; the operator dies before it hears of it.
        kill(hit.victim);
        res.destroy();
        hit.sprung();
        return;
      }
      const out: Record<string, string> = {};
      for (const k of ["content-type", "retry-after"]) {
        const v = up.headers.get(k);
        if (v) out[k] = v;
      }
      res.writeHead(up.status, out);
      res.end(body);
      if (hit) {
        setTimeout(() => kill(hit.victim), hit.trap.delayMs ?? 0);
        hit.sprung();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const p: CountingProxy = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: 0,
    throttled: 0,
    arm: (trap, victim) => new Promise<void>((sprung) => (armed = { trap, victim, sprung })),
    reset() {
      p.requests = 0;
      p.throttled = 0;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  return p;
}

// Each process its own Lease: the previous one is dead (awaited), and waiting out a killed
// holder's Lease (15 s) each time would only make the test slow.
const startOperator = (name: string, resyncSeconds = 2) =>
  world.startOperator(name, {
    resyncSeconds,
    env: { COUNTERSIGN_API_URL: proxy.url, COUNTERSIGN_OPERATOR_LEASE: `exactly-one-${name}` },
  });

const exited = (p: OperatorProcess) =>
  p.child.exitCode !== null || p.child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((r) => p.child.once("exit", () => r()));

/** Starts an operator that the trap kills; waits until it is dead. */
async function killedAt(name: string, trap: Trap): Promise<void> {
  const p = startOperator(name);
  const sprung = proxy.arm(trap, p);
  await Promise.race([
    sprung,
    exited(p).then(() => {
      throw new Error(`${name} exited before its trap: ${p.output().slice(-2000)}`);
    }),
  ]);
  await exited(p);
  expect(p.child.signalCode).toBe("SIGKILL");
}

/** Starts an operator and SIGKILLs it at a random moment of its first seconds. */
async function killedAtRandom(name: string): Promise<void> {
  const p = startOperator(name);
  await p.healthPort;
  await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 2500)));
  p.child.kill("SIGKILL");
  await exited(p);
}

const get = (kind: string, name: string) =>
  kubectlJson(plane, ["get", `${kind}.countersign.dev/${name}`, "-n", namespace]);
const secret = (name: string) => kubectlJson(plane, ["get", "secret", name, "-n", namespace]);
const uidOf = async (kind: string, name: string): Promise<string> => (await get(kind, name)).metadata.uid;
const annotate = (name: string, value: string) =>
  kubectlOk(plane, [
    "annotate",
    "--overwrite",
    "-n",
    namespace,
    `agent.countersign.dev/${name}`,
    `countersign.dev/rotate-gateway-key=${value}`,
  ]);

const agent = (name: string, secretName = `${name}-key`) => ({
  apiVersion: "countersign.dev/v1alpha1",
  kind: "Agent",
  metadata: { name, namespace },
  spec: { gatewayKey: { secretName } },
});
const webhook = (name: string, secretName: string) => ({
  apiVersion: "countersign.dev/v1alpha1",
  kind: "WebhookEndpoint",
  metadata: { name, namespace },
  spec: {
    url: "https://hooks.example.com/countersign",
    events: ["receipt.created"],
    enabled: true,
    secretName,
  },
});

/** Every gateway key (revoked included) the operator made for this resource, as the owner sees them. */
async function keysMadeFor(uid: string): Promise<JsonBody[]> {
  const res = await owner.get(`/orgs/${orgId}/api-keys?kind=gateway&created_for=${uid}&limit=100`);
  expect(res.status).toBe(200);
  return res.body.items;
}
async function endpointsMadeFor(uid: string): Promise<JsonBody[]> {
  const res = await owner.get(`/orgs/${orgId}/webhooks?created_for=${uid}&limit=100`);
  expect(res.status).toBe(200);
  return res.body.items;
}
const live = (keys: JsonBody[]) => keys.filter((k) => k.state === "active");

/** The Secret's api-key is the one live key: its id in the annotation, its value matching the key's prefix. */
async function expectSecretHolds(secretName: string, key: JsonBody): Promise<void> {
  const s = await secret(secretName);
  expect(s.metadata.annotations["countersign.dev/cloud-id"]).toBe(key.id);
  const value = Buffer.from(s.data["api-key"], "base64").toString("utf8");
  expect(value).toContain(`_${key.prefix}_`);
  expect(s.metadata.annotations["countersign.dev/api-key-sha256"]).toBe(
    createHash("sha256").update(value).digest("hex"),
  );
}

const ready = (o: JsonBody, type = "Ready") => conditionOf(o, type)?.status === "True";

beforeAll(async () => {
  world = await startOperatorWorld({ namespace });
  ({ plane, owner, orgId } = world);
  proxy = await startProxy(world.api.base);
  await applyObject(plane, {
    apiVersion: "countersign.dev/v1alpha1",
    kind: "Organization",
    metadata: { name: "crash-org", namespace },
    spec: { organizationId: orgId },
  });
}, 180_000);

// One operator at a time: each test's processes end with it (each has its own Lease).
afterEach(async () => {
  await Promise.all(world.processes.map((p) => p.stop()));
});

afterAll(async () => {
  await world?.stop();
  await proxy?.close();
});

describe("SIGKILL at each step of a creation", () => {
  it("leaves exactly one live gateway key and one webhook endpoint, and none after kubectl delete", async () => {
    const postKey = (m: string, u: string) => m === "POST" && /\/api-keys\?created_for=/.test(u);
    const postHook = (m: string, u: string) => m === "POST" && /\/webhooks\?created_for=/.test(u);
    const rotateHook = (m: string, u: string) => m === "PATCH" && /\/webhooks\/[0-9a-f-]+$/.test(u);

    await applyObject(plane, agent("crashy"));
    // The key's creation answer lost: a key exists that no Secret holds.
    await killedAt("k1", { match: postKey, mode: "lost" });
    // Killed while the Secret and the status are written after the next creation.
    await killedAt("k2", { match: postKey, mode: "after", delayMs: Math.floor(Math.random() * 300) });
    // A rotation whose new key's answer is lost.
    await annotate("crashy", "r1");
    await killedAt("k3", { match: postKey, mode: "lost" });

    await applyObject(plane, webhook("crashy-events", "crashy-events-secret"));
    // The endpoint's creation answer lost; then its adoption's (a rotated secret) answer lost.
    await killedAt("w1", { match: postHook, mode: "lost" });
    await killedAt("w2", { match: rotateHook, mode: "lost" });
    // And at a random moment, during a second rotation and the endpoint's adoption.
    await annotate("crashy", "r2");
    await killedAtRandom("x1");

    const survivor = startOperator("survivor");
    const agentUid = await uidOf("agent", "crashy");
    const hookUid = await uidOf("webhookendpoint", "crashy-events");
    await eventually("the agent's key rotated for r2 and Ready", async () => {
      const a = await get("agent", "crashy");
      return ready(a, "GatewayKeyReady") && a.status.gatewayKey?.rotation === "r2" && ready(a);
    });
    await eventually("the endpoint Ready", async () => ready(await get("webhookendpoint", "crashy-events")));

    const keys = await keysMadeFor(agentUid);
    // The kills did cut creations short: more keys were made than one...
    expect(keys.length).toBeGreaterThanOrEqual(4);
    // ...and exactly one is live, the one the Secret holds.
    const liveKeys = live(keys);
    expect(liveKeys).toHaveLength(1);
    await expectSecretHolds("crashy-key", liveKeys[0]!);
    expect((await get("agent", "crashy")).status.gatewayKey.id).toBe(liveKeys[0]!.id);

    const all = (await owner.get(`/orgs/${orgId}/webhooks?limit=100`)).body.items as JsonBody[];
    expect(all).toHaveLength(1);
    expect(all[0]!.id).toBe((await endpointsMadeFor(hookUid))[0]!.id);
    const hookSecret = await secret("crashy-events-secret");
    expect(hookSecret.metadata.annotations["countersign.dev/cloud-id"]).toBe(all[0]!.id);
    expect(Buffer.from(hookSecret.data["signing-secret"], "base64").toString()).toMatch(/^whsec_/);

    // Deletion: the survivor killed when it revokes the key, the rest done by the next one.
    const revokes = (m: string, u: string) => m === "POST" && /\/api-keys\/[0-9a-f-]+\/revoke$/.test(u);
    const killedInDeletion = proxy.arm({ match: revokes, mode: "lost" }, survivor);
    await kubectlOk(plane, ["delete", "-n", namespace, "agent.countersign.dev/crashy", "--wait=false"]);
    await kubectlOk(plane, [
      "delete",
      "-n",
      namespace,
      "webhookendpoint.countersign.dev/crashy-events",
      "--wait=false",
    ]);
    await killedInDeletion;
    await exited(survivor);
    startOperator("cleaner");
    await eventually("both resources gone", async () => {
      const res = await plane.kubectl([
        "get",
        "agents.countersign.dev,webhookendpoints.countersign.dev",
        "-n",
        namespace,
        "-o",
        "name",
      ]);
      return res.code === 0 && res.stdout.trim() === "";
    });
    expect(live(await keysMadeFor(agentUid))).toHaveLength(0);
    expect((await owner.get(`/orgs/${orgId}/webhooks?limit=100`)).body.items).toHaveLength(0);
  }, 300_000);
});

describe("a Secret the operator did not make", () => {
  it("gives SecretNotOwned naming it and no Cloud API object, until it is removed", async () => {
    for (const name of ["taken-key", "taken-hook"])
      await kubectlOk(plane, ["create", "secret", "generic", name, "-n", namespace, "--from-literal=mine=1"]);
    await applyObject(plane, agent("blocked", "taken-key"));
    await applyObject(plane, webhook("blocked-events", "taken-hook"));
    const p = startOperator("foreign");
    const agentUid = await uidOf("agent", "blocked");
    const hookUid = await uidOf("webhookendpoint", "blocked-events");
    const keyCondition = await eventually("GatewayKeyReady=False", async () => {
      const c = conditionOf(await get("agent", "blocked"), "GatewayKeyReady");
      return c?.status === "False" && c;
    });
    expect(keyCondition.reason).toBe("SecretNotOwned");
    expect(keyCondition.message).toContain("Secret taken-key exists and was not made by the operator");
    const agentReady = conditionOf(await get("agent", "blocked"), "Ready")!;
    expect([agentReady.status, agentReady.reason]).toEqual(["False", "SecretNotOwned"]);
    const hookReady = await eventually("the endpoint Ready=False", async () => {
      const c = conditionOf(await get("webhookendpoint", "blocked-events"), "Ready");
      return c?.status === "False" && c;
    });
    expect(hookReady.reason).toBe("SecretNotOwned");
    expect(hookReady.message).toContain("Secret taken-hook");

    // Passes go on (resync every 2 s); none of them makes anything.
    const passes = proxy.requests;
    await eventually("several more passes", async () => proxy.requests > passes + 6);
    expect(await keysMadeFor(agentUid)).toHaveLength(0);
    expect(await endpointsMadeFor(hookUid)).toHaveLength(0);
    // The foreign Secrets are untouched.
    for (const name of ["taken-key", "taken-hook"]) {
      const s = await secret(name);
      expect(Object.keys(s.data)).toEqual(["mine"]);
      expect(s.metadata.labels?.["app.kubernetes.io/managed-by"]).toBeUndefined();
    }

    // Removed: the next pass creates exactly one of each.
    await kubectlOk(plane, ["delete", "secret", "taken-key", "taken-hook", "-n", namespace]);
    await eventually("the agent Ready", async () => ready(await get("agent", "blocked")));
    await eventually("the endpoint Ready", async () => ready(await get("webhookendpoint", "blocked-events")));
    const keys = await keysMadeFor(agentUid);
    expect(keys).toHaveLength(1);
    await expectSecretHolds("taken-key", keys[0]!);
    expect(await endpointsMadeFor(hookUid)).toHaveLength(1);

    await kubectlOk(plane, ["delete", "-n", namespace, "agent.countersign.dev/blocked"]);
    await kubectlOk(plane, ["delete", "-n", namespace, "webhookendpoint.countersign.dev/blocked-events"]);
    expect(live(await keysMadeFor(agentUid))).toHaveLength(0);
    expect(await endpointsMadeFor(hookUid)).toHaveLength(0);
    await p.stop();
  }, 180_000);
});

describe("the Agent's Secret and rotation annotation", () => {
  it("replaces an overwritten api-key, and removing the annotation rotates nothing", async () => {
    await applyObject(plane, {
      ...agent("tampered"),
      metadata: { name: "tampered", namespace, annotations: { "countersign.dev/rotate-gateway-key": "a" } },
    });
    const p = startOperator("tamper");
    const first = await eventually("a key", async () => {
      const a = await get("agent", "tampered");
      return ready(a) && a.status.gatewayKey;
    });
    // Someone writes another value into the operator's Secret.
    await kubectlOk(plane, [
      "patch",
      "secret",
      "tampered-key",
      "-n",
      namespace,
      "--type=merge",
      "-p",
      JSON.stringify({ stringData: { "api-key": "svc_live_notthekey_000" } }),
    ]);
    const second = await eventually("a new key", async () => {
      const a = await get("agent", "tampered");
      return ready(a) && a.status.gatewayKey.id !== first.id && a.status.gatewayKey;
    });
    const keys = await keysMadeFor(await uidOf("agent", "tampered"));
    expect(live(keys).map((k) => k.id)).toEqual([second.id]);
    await expectSecretHolds("tampered-key", live(keys)[0]!);
    const events = await kubectlJson(plane, [
      "get",
      "events",
      "-n",
      namespace,
      "--field-selector",
      "involvedObject.name=tampered,reason=GatewayKeyOverwritten",
    ]);
    expect(events.items.length).toBeGreaterThan(0);
    expect(JSON.stringify(events.items)).not.toContain("notthekey");

    // The annotation removed: several passes later, the same key.
    await kubectlOk(plane, [
      "annotate",
      "-n",
      namespace,
      "agent.countersign.dev/tampered",
      "countersign.dev/rotate-gateway-key-",
    ]);
    const before = proxy.requests;
    await eventually("several more passes", async () => proxy.requests > before + 10);
    const after = await get("agent", "tampered");
    expect(after.status.gatewayKey.id).toBe(second.id);
    expect(live(await keysMadeFor(after.metadata.uid))).toHaveLength(1);

    await kubectlOk(plane, ["delete", "-n", namespace, "agent.countersign.dev/tampered"]);
    await p.stop();
  }, 180_000);
});

describe("rotation", () => {
  it("works at the plan's key cap", async () => {
    await world.db.pool.query("update organizations set plan = 'developer' where id = $1", [orgId]);
    try {
      await applyObject(plane, agent("capped"));
      const p = startOperator("cap");
      const first = await eventually("a key", async () => {
        const a = await get("agent", "capped");
        return ready(a) && a.status.gatewayKey;
      });
      // The owner fills the plan's 5 keys with keys of their own.
      for (let i = 0; i < 4; i++) {
        const made = await owner.post(`/orgs/${orgId}/api-keys`, {
          kind: "gateway",
          name: `owner-${i}`,
          agent_id: (await get("agent", "capped")).status.agentId,
          environment: "live",
        });
        expect(made.status).toBe(201);
      }
      const full = await owner.post(`/orgs/${orgId}/api-keys`, {
        kind: "gateway",
        name: "one too many",
        agent_id: (await get("agent", "capped")).status.agentId,
        environment: "live",
      });
      expect([full.status, full.body.error.code]).toEqual([402, "PLAN_LIMIT_EXCEEDED"]);

      await annotate("capped", "at-the-cap");
      const rotated = await eventually("rotated at the cap", async () => {
        const a = await get("agent", "capped");
        return ready(a) && a.status.gatewayKey.rotation === "at-the-cap" && a.status.gatewayKey;
      });
      expect(rotated.id).not.toBe(first.id);
      const keys = await keysMadeFor(await uidOf("agent", "capped"));
      expect(live(keys).map((k) => k.id)).toEqual([rotated.id]);
      await expectSecretHolds("capped-key", live(keys)[0]!);
      await kubectlOk(plane, ["delete", "-n", namespace, "agent.countersign.dev/capped"]);
      await p.stop();
    } finally {
      await world.db.pool.query("update organizations set plan = 'enterprise' where id = $1", [orgId]);
    }
    // The owner's keys go too, so the next test starts with room.
    const left = (await owner.get(`/orgs/${orgId}/api-keys?kind=gateway&state=active&limit=100`)).body
      .items as JsonBody[];
    for (const k of left)
      expect((await owner.post(`/orgs/${orgId}/api-keys/${k.id}/revoke`, {})).status).toBe(200);
  }, 180_000);

  it("of 20 keys stays within one rate window: no 429, a bounded request count", async () => {
    const names = Array.from({ length: 20 }, (_, i) => `fleet-${i}`);
    for (const n of names) await applyObject(plane, agent(n));
    // Watches only (no resync in the test's time): what is counted is what the rotation costs.
    const p = startOperator("fleet", 600);
    const before = await eventually(
      "20 agents with keys",
      async () => {
        const list = await kubectlJson(plane, ["get", "agents.countersign.dev", "-n", namespace]);
        const fleet = (list.items as JsonBody[]).filter((a) => names.includes(a.metadata.name));
        return fleet.length === 20 && fleet.every((a) => ready(a)) && fleet;
      },
      120_000,
    );
    proxy.reset();
    await kubectlOk(plane, [
      "annotate",
      "--overwrite",
      "-n",
      namespace,
      ...names.map((n) => `agent.countersign.dev/${n}`),
      "countersign.dev/rotate-gateway-key=fleet-1",
    ]);
    await eventually(
      "20 keys rotated",
      async () => {
        const list = await kubectlJson(plane, ["get", "agents.countersign.dev", "-n", namespace]);
        const fleet = (list.items as JsonBody[]).filter((a) => names.includes(a.metadata.name));
        return fleet.every((a) => ready(a) && a.status.gatewayKey?.rotation === "fleet-1");
      },
      120_000,
    );
    const requests = proxy.requests;
    console.log(`rotation of 20 keys: ${requests} Cloud API requests, ${proxy.throttled} refused 429`);
    expect(proxy.throttled).toBe(0);
    // Per rotation: the key, the keys made for the Agent, the create, the revoke; and the Agent's
    // own reads in this pass and the one its status write brings. Far under 600 a minute.
    expect(requests).toBeLessThanOrEqual(20 * 10);
    for (const a of before) {
      const keys = await keysMadeFor(a.metadata.uid);
      expect(live(keys)).toHaveLength(1);
      expect(live(keys)[0]!.id).not.toBe(a.status.gatewayKey.id);
    }
    await p.stop();
  }, 300_000);
});
