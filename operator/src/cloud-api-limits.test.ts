/**
 * The operator within the Cloud API's limits and honest about it, on a real kube-apiserver and a
 * real Cloud API (its real rate limits, SPEC 8.1), with a counting TCP-level relay between them
 * that sees every request the operator sends and every answer it gets:
 * - a Cloud API outage turns every dependent resource (Organization, Policy, Tool, the
 *   decision-only MCPServer: none of them edited) CloudAPIUnavailable within one probe interval,
 *   and Ready again as soon as it answers, not after their retry backoff;
 * - an edit of a Policy's examples alone that makes one fail turns ExamplesPassing False for that
 *   generation;
 * - a restart of the operator over 200 objects sends a bounded number of requests and gets no 429;
 * - a credential whose minute is spent gets its Retry-After honoured: few 429s, then all done.
 * Resync is longer than the test: every pass here comes from a watch, the probe or the restart.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import type { ControlPlane } from "../../test/control-plane/index.js";
import {
  applyObject,
  conditionOf,
  eventually,
  kubectlJson,
  kubectlOk,
  type TestCondition,
} from "../../test/fixtures/kube.js";
import { startOperatorProcess, type OperatorProcess } from "../../test/fixtures/operator.js";
import { startOperatorWorld, type OperatorWorld } from "../../test/fixtures/operator-world.js";
import { defaultProbeIntervalMs } from "./cloud-api/health.js";

const namespace = "limits";
const resyncSeconds = 3600;

let world: OperatorWorld;
let plane: ControlPlane;
let relay: Relay;
let operator: OperatorProcess;

/** Requests seen on their way to the Cloud API: under /api/v1 only (the probe's /readyz apart). */
interface Relay {
  url: string;
  requests: Array<{ at: number; method: string; path: string; status: number }>;
  probes: number;
  close(): Promise<void>;
}

/** Forwards to the Cloud API at its (fixed) address; when it is away, the caller's connection is dropped. */
async function startRelay(target: () => string): Promise<Relay> {
  const requests: Relay["requests"] = [];
  const state = { probes: 0 };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", target());
    const upstream = http.request(url, { method: req.method, headers: req.headers }, (answer) => {
      if (url.pathname.startsWith("/api/v1/"))
        requests.push({
          at: Date.now(),
          method: req.method!,
          path: url.pathname,
          status: answer.statusCode!,
        });
      else state.probes++;
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => req.socket.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get probes() {
      return state.probes;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const startOperator = (name: string) => {
  const p = startOperatorProcess({
    identity: name,
    kubeconfig: world.identity.kubeconfig,
    apiUrl: relay.url,
    tokenFile: world.identity.tokenFile,
    resyncSeconds,
  });
  world.processes.push(p);
  return p;
};

const object = (kind: string, name: string, spec: Record<string, unknown>) => ({
  apiVersion: "countersign.dev/v1alpha1",
  kind,
  metadata: { name, namespace },
  spec,
});
const document = {
  default_effect: "deny",
  rules: [
    {
      id: "payments",
      effect: "allow",
      tools: ["payments.send"],
      conditions: [{ field: "amount", op: "lte", threshold: "100.00", currency: "USD" }],
    },
  ],
};
const example = (id: string, amount: string, expectedOutcome: string, expectedRule: string) => ({
  id,
  tool: "payments.send",
  action: "payments.send",
  amount,
  currency: "USD",
  expectedOutcome,
  expectedRule,
});
const tool = (name: string, server: string, exposedName: string) =>
  object("Tool", name, {
    mcpServerRef: { name: server },
    exposedName,
    action: exposedName,
    inputSchema: { type: "object", properties: { amount: { type: "string" } } },
  });

interface Listed {
  kind: string;
  metadata: { name: string; generation: number };
  status?: { observedGeneration?: number; conditions?: TestCondition[] };
}
async function all(): Promise<Listed[]> {
  const list = await kubectlJson(plane, [
    "get",
    "organizations.countersign.dev,mcpservers.countersign.dev,tools.countersign.dev,policies.countersign.dev",
    "-n",
    namespace,
  ]);
  return list.items;
}
const ready = (o: Listed) => conditionOf(o, "Ready");
const get = async (kind: string, name: string): Promise<Listed> =>
  kubectlJson(plane, ["get", `${kind}.countersign.dev/${name}`, "-n", namespace]);

async function operatorMetrics(p: OperatorProcess): Promise<string> {
  return (await fetch(`http://127.0.0.1:${await p.healthPort}/metrics`)).text();
}
const sumOf = (text: string, name: string, filter = "") =>
  text
    .split("\n")
    .filter((l) => l.startsWith(name) && l.includes(filter))
    .reduce((n, l) => n + Number(l.split(" ").pop()), 0);

beforeAll(async () => {
  world = await startOperatorWorld({ namespace, allowAdminChanges: true });
  plane = world.plane;
  // Room for 200 objects (SPEC 8.6): a plan a person would have bought.
  await world.db.pool.query("update organizations set plan = 'growth' where id = $1", [world.orgId]);
  relay = await startRelay(() => world.api.base);
  operator = startOperator("operator-limits");
  await applyObject(plane, object("Organization", "acme", { organizationId: world.orgId }));
  await applyObject(plane, object("MCPServer", "desk-0", { decisionOnly: true }));
  await applyObject(plane, tool("send-0", "desk-0", "payments.send"));
  await applyObject(
    plane,
    object("Policy", "payments", {
      document,
      examples: [example("small", "50.00", "allowed", "payments")],
    }),
  );
  await eventually(
    "the four resources Ready",
    async () => {
      const items = await all();
      return items.length === 4 && items.every((o) => ready(o)?.status === "True");
    },
    90_000,
  );
}, 240_000);

afterAll(async () => {
  await world?.stop();
  await relay?.close();
});

describe("a Cloud API outage", { timeout: 120_000 }, () => {
  it("marks every dependent resource CloudAPIUnavailable within one probe interval, and clears as soon as it answers", async () => {
    const before = await all();
    await world.stopCloudApi();
    const stoppedAt = Date.now();
    let down: Listed[];
    try {
      // Nothing is edited: only the probe can tell these resources.
      down = await eventually(
        "every resource CloudAPIUnavailable",
        async () => {
          const items = await all();
          return items.every((o) => ready(o)?.reason === "CloudAPIUnavailable") && items;
        },
        defaultProbeIntervalMs + 10_000,
      );
      console.log(`outage seen on all ${down.length} resources after ${Date.now() - stoppedAt} ms`);
      expect(await operatorMetrics(operator)).toMatch(/^countersign_operator_cloud_api_available 0$/m);
      // Long enough that a pass's exponential backoff (0.5 s doubling) is well past a probe interval.
      await new Promise((r) => setTimeout(r, 20_000));
    } finally {
      await world.startCloudApi();
    }
    const startedAt = Date.now();
    expect(down.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual(
      before.map((o) => `${o.kind}/${o.metadata.name}`).sort(),
    );
    for (const o of down) {
      expect(ready(o)).toMatchObject({ status: "False", reason: "CloudAPIUnavailable" });
      expect(ready(o)!.message).toMatch(/^the Cloud API did not answer/);
      expect(o.status!.observedGeneration).toBe(o.metadata.generation);
    }
    const back = await eventually(
      "every resource Ready again",
      async () => {
        const items = await all();
        return items.every((o) => ready(o)?.status === "True") && items;
      },
      defaultProbeIntervalMs + 10_000,
    );
    console.log(`recovery seen on all ${back.length} resources after ${Date.now() - startedAt} ms`);
    expect(await operatorMetrics(operator)).toMatch(/^countersign_operator_cloud_api_available 1$/m);
    const policy = back.find((o) => o.kind === "Policy")!;
    expect(conditionOf(policy, "ExamplesPassing")).toMatchObject({
      status: "True",
      reason: "Passed",
      observedGeneration: policy.metadata.generation,
    });
  });
});

describe("ExamplesPassing", { timeout: 60_000 }, () => {
  it("an edit of the examples alone that makes one fail is False for that generation, naming it; True again when fixed", async () => {
    const examples = [
      example("small", "50.00", "allowed", "payments"),
      example("large", "500.00", "allowed", "payments"),
    ];
    await applyObject(plane, object("Policy", "payments", { document, examples }));
    const failing = await eventually("ExamplesPassing False", async () => {
      const p = await get("policy", "payments");
      const c = conditionOf(p, "ExamplesPassing");
      return c?.status === "False" && c.observedGeneration === p.metadata.generation && p;
    });
    expect(conditionOf(failing, "ExamplesPassing")).toMatchObject({ reason: "ExamplesFailing" });
    expect(conditionOf(failing, "ExamplesPassing")!.message).toContain(
      "large (expected allowed by payments, got denied by the default)",
    );
    expect(conditionOf(failing, "Ready")).toMatchObject({ status: "False", reason: "ExamplesFailing" });
    // What the Cloud API's own gate says of the same examples on the active version.
    const policyId = (failing.status as { policyId?: string }).policyId;
    const saved = await world.owner.request("PUT", `/orgs/${world.orgId}/policies/${policyId}/examples`, {
      examples: examples.map(({ expectedOutcome, expectedRule, ...e }) => ({
        ...e,
        expected_outcome: expectedOutcome,
        expected_rule: expectedRule,
      })),
    });
    expect(saved.status).toBe(200);
    expect(saved.body.active_version_report.failed).toBe(1);

    await applyObject(
      plane,
      object("Policy", "payments", {
        document,
        examples: [examples[0], example("large", "500.00", "denied", "")],
      }),
    );
    const fixed = await eventually("ExamplesPassing True", async () => {
      const p = await get("policy", "payments");
      const c = conditionOf(p, "ExamplesPassing");
      return c?.status === "True" && c.observedGeneration === p.metadata.generation && p;
    });
    expect(conditionOf(fixed, "Ready")).toMatchObject({ status: "True" });
  });
});

describe("requests within the Cloud API's limits", { timeout: 300_000 }, () => {
  const servers = 9;
  const policies = 20;
  const tools = 170;

  it("a restart over 200 objects gets no 429 and sends a bounded number of requests", async () => {
    const manifests: unknown[] = [];
    for (let s = 1; s < servers; s++)
      manifests.push(object("MCPServer", `desk-${s}`, { decisionOnly: true }));
    for (let t = 1; t < tools; t++) manifests.push(tool(`tool-${t}`, `desk-${t % servers}`, `op${t}.run`));
    for (let p = 1; p < policies; p++)
      manifests.push(
        object("Policy", `policy-${p}`, {
          document,
          examples: [example("small", "50.00", "allowed", "payments")],
        }),
      );
    await kubectlOk(plane, ["apply", "-f", "-"], manifests.map((m) => stringify(m)).join("---\n"));
    const createdFrom = Date.now();
    const made = await eventually(
      "200 objects Ready",
      async () => {
        const items = await all();
        return items.length === 200 && items.every((o) => ready(o)?.status === "True") && items;
      },
      200_000,
    );
    expect(made).toHaveLength(1 + servers + tools + policies);
    const creation = relay.requests.filter((r) => r.at >= createdFrom);
    console.log(`creating 196 objects: ${creation.length} requests in ${Date.now() - createdFrom} ms`);

    await operator.stop();
    const from = relay.requests.length;
    const restartedAt = Date.now();
    operator = startOperator("operator-limits-2");
    // Every object has had its pass once the reconciles counted reach 200 and no queue holds a key.
    await eventually(
      "the restarted operator reconciled every object",
      async () => {
        const text = await operatorMetrics(operator);
        return (
          sumOf(text, "countersign_operator_reconciles_total", 'result="success"') >= 200 &&
          sumOf(text, "countersign_operator_queue_depth") === 0
        );
      },
      120_000,
    );
    // Quiet: nothing more is sent once every object is looked at.
    await new Promise((r) => setTimeout(r, 2_000));
    const restart = relay.requests.slice(from);
    const byPath = new Map<string, number>();
    for (const r of restart) {
      const shape = `${r.method} ${r.path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ":id")}`;
      byPath.set(shape, (byPath.get(shape) ?? 0) + 1);
    }
    console.log(
      `restart over 200 objects: ${restart.length} requests in ${Date.now() - restartedAt} ms`,
      Object.fromEntries(byPath),
    );
    expect(restart.filter((r) => r.status === 429)).toEqual([]);
    expect(relay.requests.filter((r) => r.status === 429)).toEqual([]);
    // One pass per object: one read per Organization, MCPServer and Tool; a Policy reads its
    // detail, its document's digest and the organization's policy status. A few more allowed for
    // an event racing the start, never a second round.
    const onePassEach = 1 + servers + tools + 3 * policies;
    expect(restart.length).toBeGreaterThanOrEqual(onePassEach);
    expect(restart.length).toBeLessThanOrEqual(onePassEach + 10);
    expect(restart.every((r) => r.method === "GET" || r.path.endsWith("/policies/validate"))).toBe(true);
  });

  it("a spent minute of the credential: the operator waits out Retry-After instead of hammering", async () => {
    // Someone else spends the operator's credential's minute (SPEC 8.1: 600 per credential).
    const spend = async () => {
      const res = await fetch(`${world.api.base}/api/v1/orgs/${world.orgId}`, {
        headers: { authorization: `Bearer ${world.identity.token}` },
      });
      await res.arrayBuffer();
      return res.status;
    };
    let status = 200;
    for (let i = 0; i < 700 && status !== 429; i++) status = await spend();
    expect(status).toBe(429);
    const from = relay.requests.length;
    // Every Tool's exposed name changes: 170 writes wanted while the minute is spent.
    const edits: unknown[] = [];
    for (let t = 1; t < 40; t++)
      edits.push({
        ...tool(`tool-${t}`, `desk-${t % servers}`, `op${t}.run`),
        spec: { ...tool(`tool-${t}`, `desk-${t % servers}`, `op${t}.run`).spec, action: `op${t}.run.v2` },
      });
    await kubectlOk(plane, ["apply", "-f", "-"], edits.map((m) => stringify(m)).join("---\n"));
    await eventually(
      "every edit reached the Cloud API",
      async () => {
        const items = await all();
        const edited = items.filter(
          (o) => o.kind === "Tool" && /^tool-([1-9]|[1-3][0-9])$/.test(o.metadata.name),
        );
        return (
          edited.length === 39 &&
          edited.every(
            (o) => ready(o)?.status === "True" && o.status!.observedGeneration === o.metadata.generation,
          )
        );
      },
      150_000,
    );
    const refused = relay.requests.slice(from).filter((r) => r.status === 429);
    console.log(
      `${relay.requests.length - from} requests, ${refused.length} refused 429 while the minute was spent`,
    );
    // Each Retry-After pauses every reconciler: the few refused are those already on their way.
    expect(refused.length).toBeLessThanOrEqual(4);
  });
});
