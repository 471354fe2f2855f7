/**
 * Status tells the truth, against a real kube-apiserver and a real Cloud API, with an operator that
 * resyncs only every 10 minutes, so what happens within seconds is brought about by watches alone:
 * - the Cloud API stopped shows as CloudAPIUnavailable on the next pass (with the current
 *   observedGeneration on every condition and a Warning event) and clears when it returns;
 * - a refused document shows the Cloud API's issues (path and reason, never the value);
 * - a deleted principal Secret turns PrincipalKeyAvailable False, a rotated credential Secret
 *   reaches the Cloud API, an Agent becomes Ready once its Policy is, each without a resync;
 * - a removed operator binding shows as BindingMissing;
 * - /readyz answers ok only while the Kubernetes API answers (and the leader's controllers synced).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ControlPlane } from "../../test/control-plane/index.js";
import { newPrincipalWithPem } from "../../test/fixtures/identities.js";
import {
  applyObject,
  conditionOf,
  eventually,
  kubectlJson,
  kubectlOk,
  type TestCondition,
} from "../../test/fixtures/kube.js";
import { operatorUsername, type OperatorProcess } from "../../test/fixtures/operator.js";
import { startOperatorWorld, type OperatorWorld } from "../../test/fixtures/operator-world.js";

const namespace = "status-truth";
/** Longer than the test: nothing here can come from a periodic resync. */
const resyncSeconds = 600;
/** "Within seconds": watches act at once; this bound only keeps a failure from hanging. */
const soon = 15_000;

let world: OperatorWorld;
let plane: ControlPlane;

const get = (kind: string, name: string) =>
  kubectlJson(plane, ["get", `${kind}.countersign.dev/${name}`, "-n", namespace]);
const apply = (o: unknown) => applyObject(plane, o);
const object = (kind: string, name: string, spec: Record<string, unknown>) => ({
  apiVersion: "countersign.dev/v1alpha1",
  kind,
  metadata: { name, namespace },
  spec,
});
const document = (threshold: string) => ({
  default_effect: "deny",
  rules: [
    {
      id: "payments",
      effect: "allow",
      tools: ["payments.send"],
      conditions: [{ field: "amount", op: "lte", threshold, currency: "USD" }],
    },
  ],
});

/** Every condition carries the object's current generation, as does status. */
function expectCurrent(o: {
  metadata: { generation: number };
  status: { observedGeneration: number; conditions: TestCondition[] };
}) {
  expect(o.status.observedGeneration).toBe(o.metadata.generation);
  for (const c of o.status.conditions)
    expect({ type: c.type, observedGeneration: c.observedGeneration }).toEqual({
      type: c.type,
      observedGeneration: o.metadata.generation,
    });
}

async function warningEvents(name: string, reason: string): Promise<Array<{ message: string }>> {
  const list = await kubectlJson(plane, [
    "get",
    "events",
    "-n",
    namespace,
    "--field-selector",
    `involvedObject.name=${name},reason=${reason},type=Warning`,
  ]);
  return list.items;
}

const principalSecret = (pem: string) => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "org-principal", namespace },
  stringData: { "private-key.pem": pem },
});

beforeAll(async () => {
  world = await startOperatorWorld({ namespace, allowAdminChanges: true });
  plane = world.plane;
  const { identity, pem } = newPrincipalWithPem(world.orgId);
  expect(
    (await world.owner.post(`/orgs/${world.orgId}/principal`, { document: identity.documents[0] })).status,
  ).toBe(201);
  await apply(principalSecret(pem));
  operator = world.startOperator("operator-truth", { resyncSeconds });
  await apply(
    object("Organization", "acme", {
      organizationId: world.orgId,
      principalKeySecretRef: { name: "org-principal", key: "private-key.pem" },
    }),
  );
  await eventually(
    "acme Ready",
    async () => conditionOf(await get("organization", "acme"), "Ready")?.status === "True",
  );
  // Kept for the principal Secret test below.
  principalPem = pem;
}, 240_000);

let principalPem = "";
let operator: OperatorProcess;

afterAll(async () => {
  await world?.stop();
});

describe("readiness", () => {
  it("/readyz answers ok once the leader's controllers have listed their kinds", async () => {
    const res = await fetch(`http://127.0.0.1:${await operator.healthPort}/readyz`);
    expect(await res.text()).toBe("ok\n");
    expect(res.status).toBe(200);
  });
});

describe("watches instead of timers", { timeout: 120_000 }, () => {
  it("a deleted principal Secret turns PrincipalKeyAvailable False within seconds, and its return True", async () => {
    expect(conditionOf(await get("organization", "acme"), "PrincipalKeyAvailable")?.status).toBe("True");
    await kubectlOk(plane, ["delete", "secret", "org-principal", "-n", namespace]);
    const gone = await eventually(
      "PrincipalKeyAvailable False",
      async () => {
        const o = await get("organization", "acme");
        return conditionOf(o, "PrincipalKeyAvailable")?.status === "False" && o;
      },
      soon,
    );
    expect(conditionOf(gone, "PrincipalKeyAvailable")).toMatchObject({
      reason: "SecretNotFound",
      message: "Secret org-principal does not exist",
    });
    expect(conditionOf(gone, "Ready")).toMatchObject({ status: "False", reason: "SecretNotFound" });
    await apply(principalSecret(principalPem));
    await eventually(
      "PrincipalKeyAvailable True again",
      async () => conditionOf(await get("organization", "acme"), "PrincipalKeyAvailable")?.status === "True",
      soon,
    );
  });

  it("an Agent applied before its Policy becomes Ready within seconds of the Policy", async () => {
    await apply(object("Agent", "refund-bot", { policyRef: { name: "refunds" } }));
    const waiting = await eventually(
      "Agent waits for its Policy",
      async () => {
        const o = await get("agent", "refund-bot");
        return conditionOf(o, "PolicyAssigned")?.status === "False" && o;
      },
      soon,
    );
    expect(conditionOf(waiting, "PolicyAssigned")).toMatchObject({
      reason: "PolicyNotReady",
      message: "Policy refunds does not exist",
    });
    await apply(object("Policy", "refunds", { document: document("100.00") }));
    await eventually(
      "Policy Ready",
      async () => conditionOf(await get("policy", "refunds"), "Ready")?.status === "True",
      soon,
    );
    const agent = await eventually(
      "Agent Ready",
      async () => {
        const o = await get("agent", "refund-bot");
        return conditionOf(o, "Ready")?.status === "True" && o;
      },
      soon,
    );
    expect(conditionOf(agent, "PolicyAssigned")).toMatchObject({ status: "True", reason: "Assigned" });
    expectCurrent(agent);
  });

  it("a rotated credential Secret reaches the Cloud API within seconds", async () => {
    await kubectlOk(plane, [
      "create",
      "secret",
      "generic",
      "upstream-credential",
      "-n",
      namespace,
      "--from-literal=authorization=Bearer first-token",
    ]);
    await apply(
      object("MCPServer", "payments-mcp", {
        url: "https://mcp.payments.example/mcp",
        credentialSecretRef: { name: "upstream-credential", key: "authorization" },
      }),
    );
    const first = await eventually(
      "MCPServer Ready",
      async () => {
        const o = await get("mcpserver", "payments-mcp");
        return conditionOf(o, "Ready")?.status === "True" && o;
      },
      soon,
    );
    const server = async () =>
      (await world.owner.get(`/orgs/${world.orgId}/mcp-servers/${first.status.mcpServerId}`)).body.mcp_server;
    const before = (await server()).credential.version;
    await apply({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "upstream-credential", namespace },
      stringData: { authorization: "Bearer rotated-token" },
    });
    const rv = (await kubectlJson(plane, ["get", "secret", "upstream-credential", "-n", namespace])).metadata
      .resourceVersion;
    await eventually(
      "the new credential sent",
      async () => (await get("mcpserver", "payments-mcp")).status.credentialSecretVersion === rv,
      soon,
    );
    expect((await server()).credential.version).toBeGreaterThan(before);
  });
});

describe("failures reach status", { timeout: 180_000 }, () => {
  it("a refused document shows the Cloud API's issues: the path and the reason, not the value", async () => {
    await apply(
      object("Policy", "broken", {
        document: {
          default_effect: "deny",
          rules: [{ id: "r", effect: "permit-everything", tools: ["x.y"] }],
        },
      }),
    );
    const o = await eventually(
      "Policy refused",
      async () => {
        const p = await get("policy", "broken");
        return conditionOf(p, "Ready")?.reason === "PolicyInvalid" && p;
      },
      soon,
    );
    const message = conditionOf(o, "Ready")!.message;
    expect(message).toContain("POLICY_INVALID");
    expect(message).toContain("rules.0.effect");
    expect(message).not.toContain("permit-everything");
    expect(conditionOf(o, "Reconciled")!.message).toBe(message);
    expectCurrent(o);
  });

  it("the Cloud API stopped: CloudAPIUnavailable on the next pass, every condition of the current generation; recovered when it returns", async () => {
    const before = await get("policy", "refunds");
    expect(conditionOf(before, "Ready")?.status).toBe("True");
    await world.stopCloudApi();
    try {
      await apply(object("Policy", "refunds", { document: document("150.00") }));
      const down = await eventually(
        "CloudAPIUnavailable",
        async () => {
          const o = await get("policy", "refunds");
          return (
            conditionOf(o, "Reconciled")?.reason === "CloudAPIUnavailable" &&
            o.status.observedGeneration === o.metadata.generation &&
            o
          );
        },
        soon,
      );
      expect(down.metadata.generation).toBeGreaterThan(before.metadata.generation);
      expect(conditionOf(down, "Reconciled")).toMatchObject({ status: "False" });
      expect(conditionOf(down, "Ready")).toMatchObject({ status: "False", reason: "CloudAPIUnavailable" });
      expect(conditionOf(down, "Ready")!.message).toMatch(/^the Cloud API did not answer/);
      // What an earlier pass found about the previous document is not passed off as current.
      expect(conditionOf(down, "ExamplesPassing")).toMatchObject({
        status: "Unknown",
        reason: "NotEvaluated",
      });
      expectCurrent(down);
      const events = await warningEvents("refunds", "CloudAPIUnavailable");
      expect(events.length).toBeGreaterThan(0);
      // Which replica acted, and under which name its writes are recorded.
      expect(events[0]).toMatchObject({
        reportingComponent: "countersign-operator",
        reportingInstance: "operator-truth",
      });
      const managers = (
        await kubectlJson(plane, [
          "get",
          "policy.countersign.dev/refunds",
          "-n",
          namespace,
          "--show-managed-fields",
        ])
      ).metadata.managedFields.map(
        (m: { manager: string; subresource?: string }) => `${m.manager}/${m.subresource ?? ""}`,
      );
      expect(managers).toContain("countersign-operator/status");
      expect(managers.join(" ")).not.toContain("node-fetch");
    } finally {
      await world.startCloudApi();
    }
    const back = await eventually(
      "Ready again",
      async () => {
        const o = await get("policy", "refunds");
        return conditionOf(o, "Ready")?.status === "True" && o;
      },
      60_000,
    );
    expect(conditionOf(back, "Reconciled")).toMatchObject({ status: "True", reason: "Synced" });
    expect(conditionOf(back, "ExamplesPassing")).toMatchObject({ status: "True" });
    expectCurrent(back);
  });

  it("a removed operator binding shows as BindingMissing on the resources, naming the binding", async () => {
    const bindings = (await world.owner.get(`/orgs/${world.orgId}/operator-bindings`)).body.items as Array<{
      id: string;
    }>;
    for (const b of bindings) {
      const removed = await world.owner.delete(`/orgs/${world.orgId}/operator-bindings/${b.id}`);
      expect(removed.text).toBe("");
      expect(removed.status).toBe(204);
    }
    try {
      await apply(object("Policy", "refunds", { document: document("175.00") }));
      const o = await eventually(
        "BindingMissing",
        async () => {
          const p = await get("policy", "refunds");
          // The pass of the applied generation (an earlier generation's pass may see the binding gone first).
          if (
            conditionOf(p, "Ready")?.reason !== "BindingMissing" ||
            p.status.observedGeneration !== p.metadata.generation
          )
            throw new Error(JSON.stringify(p.status));
          return p;
        },
        soon,
      );
      expect(conditionOf(o, "Ready")!.message).toContain("operator-bindings");
      expectCurrent(o);
    } finally {
      const bound = await world.owner.post(`/orgs/${world.orgId}/operator-bindings`, {
        username: operatorUsername,
        role: "admin",
        allow_admin_changes: true,
      });
      expect(bound.status).toBe(201);
    }
  });
});

describe("readiness without the apiserver", { timeout: 120_000 }, () => {
  it("/readyz turns 503 while the Kubernetes API does not answer, and ok again when it does", async () => {
    const readyz = async () => {
      const res = await fetch(`http://127.0.0.1:${await operator.healthPort}/readyz`);
      return { status: res.status, text: await res.text() };
    };
    await plane.stopApiServer();
    try {
      const down = await eventually("not ready", async () => {
        const r = await readyz();
        return r.status === 503 && r;
      });
      expect(down.text).toBe("not ready: the Kubernetes API has not answered lately\n");
    } finally {
      await plane.startApiServer();
    }
    await eventually("ready again", async () => (await readyz()).status === 200);
  });
});
