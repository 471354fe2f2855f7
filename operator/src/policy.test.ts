/**
 * The Policy reconciler against a real kube-apiserver and a real Cloud API, through an operator
 * process running under the chart's ClusterRole: the rollout walk Enforce -> Shadow ->
 * RequireApproval -> Enforce (each stage in `kubectl get policies` and in GET policy-status), the
 * examples gate blocking an activation visibly, a rollback declared by version (exactly one
 * rollback however many resyncs), an unknown version refused, and observe windows for named Agents.
 * Every refusal is checked in both halves: status and events say why, the Cloud API is unchanged.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import type { ControlPlane } from "../../test/control-plane/index.js";
import type { Browser } from "../../test/fixtures/cloud-api.js";
import { operatorUsername } from "../../test/fixtures/operator.js";
import { startOperatorWorld, type OperatorWorld } from "../../test/fixtures/operator-world.js";
import { applyObject, conditionOf, eventually, kubectlJson } from "../../test/fixtures/kube.js";

const namespace = "payments-team";
let world: OperatorWorld;
let plane: ControlPlane;
let owner: Browser;
let orgId: string;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const getJson = (args: string[]) => kubectlJson(plane, args);

const apply = (object: unknown) => applyObject(plane, object);

const condition = conditionOf;

const policyState = (): Promise<Json> => getJson(["get", "policy.countersign.dev/payments", "-n", namespace]);

/**
 * The printer columns as a person sees them (NAME STAGE ACTIVE SHADOW READY AGE), read by the
 * header's column positions, so an empty column reads as "".
 */
async function tableRow(): Promise<Record<string, string>> {
  const res = await plane.kubectl(["get", "policies.countersign.dev", "-n", namespace]);
  expect(res.code).toBe(0);
  const [header, ...rows] = res.stdout.trimEnd().split("\n");
  const starts = [...header!.matchAll(/\S+/g)].map((m) => ({ name: m[0], at: m.index }));
  const row = rows.find((r) => r.startsWith("payments "))!;
  return Object.fromEntries(
    starts.map((c, i) => [c.name, row.slice(c.at, starts[i + 1]?.at ?? row.length).trim()]),
  );
}
const columns = async () => {
  const r = await tableRow();
  return { STAGE: r.STAGE, ACTIVE: r.ACTIVE, SHADOW: r.SHADOW, READY: r.READY };
};

async function policyStatusItem(policyId: string): Promise<Json> {
  const res = await owner.get(`/orgs/${orgId}/policy-status`);
  expect(res.status).toBe(200);
  return res.body.items.find((p: { policy_id: string }) => p.policy_id === policyId);
}

async function policyDetail(policyId: string): Promise<Json> {
  const res = await owner.get(`/orgs/${orgId}/policies/${policyId}`);
  expect(res.status).toBe(200);
  return res.body;
}

async function audit(action: string): Promise<Json[]> {
  const res = await owner.get(`/orgs/${orgId}/audit?action=${action}&limit=100`);
  expect(res.status).toBe(200);
  return res.body.items;
}

async function eventReasons(name: string): Promise<string[]> {
  const list = await getJson([
    "get",
    "events",
    "-n",
    namespace,
    "--field-selector",
    `involvedObject.name=${name}`,
  ]);
  return list.items.map((e: { reason: string }) => e.reason);
}

/** What a refused pass must leave as it was in the Cloud API. */
async function cloudSnapshot(policyId: string) {
  const detail = await policyDetail(policyId);
  return {
    policy: {
      active: detail.policy.active_version_id,
      shadow: detail.policy.shadow_version_id,
    },
    versions: detail.versions.map((v: Json) => `${v.number}:${v.status}`),
    activated: (await audit("policy.activated")).length,
    rolledBack: (await audit("policy.rolled_back")).length,
  };
}

/** Waits for two more resync passes (the operator resyncs every 2 s). */
const twoResyncs = () => new Promise((r) => setTimeout(r, 5000));

const samples = (file: string) => fileURLToPath(new URL(`../../config/samples/${file}`, import.meta.url));
const sample: Json = parseAllDocuments(readFileSync(samples("policy.yaml"), "utf8"))[0]!.toJS();

/** The candidate of the walk: payments allowed up to 50 only, approval above. */
const candidate = structuredClone(sample.spec.document);
candidate.rules[0].conditions[0].threshold = "50.00";
candidate.rules[1].conditions[0].threshold = "50.00";

const withSpec = (spec: Record<string, unknown>) => ({ ...sample, spec: { ...sample.spec, ...spec } });

beforeAll(async () => {
  // The Agents of the observe tests are assigned this policy by the operator.
  world = await startOperatorWorld({ namespace, allowAdminChanges: true });
  ({ plane, owner, orgId } = world);
  expect((await owner.patch(`/orgs/${orgId}`, { observe_max_hours: 24 })).status).toBe(200);
  await apply({
    apiVersion: "countersign.dev/v1alpha1",
    kind: "Organization",
    metadata: { name: "payments-org", namespace },
    spec: { organizationId: orgId },
  });
  world.startOperator("operator-policy");
}, 180_000);

afterAll(async () => {
  await world?.stop();
});

describe("a Policy resource", { timeout: 180_000 }, () => {
  let policyId: string;
  const versionIds: Record<number, string> = {};

  it("activates its document through the gates: stage Enforce, version 1, in kubectl and in policy-status", async () => {
    await apply(sample);
    const enforced = await eventually("policy enforced", async () => {
      const o = await policyState();
      return condition(o, "Ready")?.status === "True" && o;
    });
    policyId = enforced.status.policyId;
    versionIds[1] = enforced.status.activeVersion.id;
    expect(enforced.status).toMatchObject({ stage: "Enforce", activeVersion: { number: 1 } });
    expect(condition(enforced, "ExamplesPassing")).toMatchObject({ status: "True" });
    expect(await columns()).toEqual({ STAGE: "Enforce", ACTIVE: "1", SHADOW: "", READY: "True" });
    expect(await policyStatusItem(policyId)).toMatchObject({
      stage: "enforce",
      active_version: { number: 1 },
      shadow_version: null,
    });
    expect((await policyDetail(policyId)).examples.map((e: { id: string }) => e.id)).toEqual([
      "small-payment",
      "large-payment",
      "unknown-tool",
    ]);
  });

  it("blocks a document whose example fails: ExamplesPassing False naming it, a Warning event, nothing activated", async () => {
    const before = await cloudSnapshot(policyId);
    const broken = structuredClone(sample.spec.document);
    broken.rules = broken.rules.filter((r: { id: string }) => r.id !== "payments");
    await apply(withSpec({ document: broken }));
    const blocked = await eventually("examples gate blocks", async () => {
      const o = await policyState();
      return condition(o, "ExamplesPassing")?.status === "False" && o;
    });
    expect(blocked.status.gates.examples.failing).toEqual([
      { id: "small-payment", expected: "allowed by payments", actual: "denied by the default" },
    ]);
    expect(condition(blocked, "Ready")).toMatchObject({ status: "False", reason: "ExamplesFailing" });
    expect(condition(blocked, "Ready")!.message).toMatch(/small-payment \(expected allowed by payments/);
    expect(await eventReasons("payments")).toContain("ExamplesFailing");
    expect(await columns()).toEqual({ STAGE: "Enforce", ACTIVE: "1", SHADOW: "", READY: "False" });
    const wide = await plane.kubectl(["get", "policies.countersign.dev", "-n", namespace, "-o", "wide"]);
    expect(wide.stdout.split("\n")[0]).toMatch(/READY\s+AGE\s+MESSAGE$/);
    expect(wide.stdout).toMatch(/small-payment \(expected allowed by payments, got denied by the default\)/);
    await twoResyncs();
    const after = await cloudSnapshot(policyId);
    // The refused document is kept as one draft (reused by every later pass); nothing else changed.
    expect(after).toEqual({ ...before, versions: ["2:draft", ...before.versions] });
    expect((await policyStatusItem(policyId)).active_version.number).toBe(1);
  });

  it("Shadow: the document stays active and the candidate's version is the shadow", async () => {
    await apply(withSpec({ rollout: { stage: "Shadow", candidate } }));
    const shadowed = await eventually("stage Shadow", async () => {
      const o = await policyState();
      return o.status.stage === "Shadow" && condition(o, "Ready")?.status === "True" && o;
    });
    expect(shadowed.status.activeVersion.number).toBe(1);
    expect(shadowed.status.shadowVersion.number).toBe(3);
    versionIds[3] = shadowed.status.shadowVersion.id;
    expect(await columns()).toEqual({ STAGE: "Shadow", ACTIVE: "1", SHADOW: "3", READY: "True" });
    expect(await policyStatusItem(policyId)).toMatchObject({
      stage: "shadow",
      active_version: { number: 1 },
      shadow_version: { number: 3 },
    });
  });

  it("RequireApproval: the examples gate blocks the require-approval copy visibly and activates nothing", async () => {
    const before = await cloudSnapshot(policyId);
    await apply(withSpec({ rollout: { stage: "RequireApproval", candidate } }));
    const blocked = await eventually("require-approval copy blocked", async () => {
      const o = await policyState();
      return condition(o, "Ready")?.reason === "ExamplesFailing" && o;
    });
    // The copy turns the default deny into require_approval: the unknown-tool example fails.
    expect(blocked.status.gates.examples.failing).toEqual([
      { id: "unknown-tool", expected: "denied by the default", actual: "requires_approval by the default" },
    ]);
    expect(condition(blocked, "ExamplesPassing")!.message).toMatch(/require-approval copy of version 3/);
    expect(blocked.status).toMatchObject({ stage: "Shadow", activeVersion: { number: 1 } });
    await twoResyncs();
    const after = await cloudSnapshot(policyId);
    expect(after).toEqual({ ...before, versions: ["4:draft", ...before.versions] });
    const copy = (await policyDetail(policyId)).versions.find((v: Json) => v.number === 4);
    expect(copy).toMatchObject({ origin: "require_approval_copy", source_version_id: versionIds[3] });
  });

  it("RequireApproval with the failing examples acknowledged: the copy is active, stage RequireApproval", async () => {
    await apply(
      withSpec({ rollout: { stage: "RequireApproval", candidate, acknowledgeFailingExamples: true } }),
    );
    const requiring = await eventually("stage RequireApproval", async () => {
      const o = await policyState();
      return o.status.stage === "RequireApproval" && condition(o, "Ready")?.status === "True" && o;
    });
    expect(requiring.status.activeVersion.number).toBe(4);
    expect(requiring.status.shadowVersion.number).toBe(3);
    // Acknowledged is not passing: the condition still says which example fails.
    expect(condition(requiring, "ExamplesPassing")).toMatchObject({
      status: "False",
      reason: "FailingAcknowledged",
    });
    expect(await columns()).toEqual({ STAGE: "RequireApproval", ACTIVE: "4", SHADOW: "3", READY: "True" });
    expect(await policyStatusItem(policyId)).toMatchObject({
      stage: "require_approval",
      active_version: { number: 4 },
      shadow_version: { number: 3 },
    });
    const activations = await audit("policy.activated");
    expect(activations.find((a) => a.details.version === 4)).toMatchObject({
      actor: { type: "operator" },
      details: { version: 4, acknowledged_failing_examples: true },
    });
  });

  it("Enforce with the candidate as document: the candidate is activated and the shadow cleared", async () => {
    await apply(withSpec({ document: candidate, rollout: { stage: "Enforce" } }));
    const enforced = await eventually("candidate enforced", async () => {
      const o = await policyState();
      return o.status.stage === "Enforce" && o.status.activeVersion?.number === 3 && o;
    });
    expect(enforced.status.shadowVersion).toBeUndefined();
    expect(condition(enforced, "ExamplesPassing")).toMatchObject({ status: "True", reason: "Passed" });
    expect(await columns()).toEqual({ STAGE: "Enforce", ACTIVE: "3", SHADOW: "", READY: "True" });
    expect(await policyStatusItem(policyId)).toMatchObject({
      stage: "enforce",
      active_version: { number: 3 },
      shadow_version: null,
    });
  });

  it("refuses a rollback to a version that does not exist, visibly, and changes nothing", async () => {
    const before = await cloudSnapshot(policyId);
    await apply(withSpec({ document: candidate, rollbackToVersion: 99 }));
    const refused = await eventually("unknown version refused", async () => {
      const o = await policyState();
      return condition(o, "RolledBack")?.reason === "UnknownVersion" && o;
    });
    expect(condition(refused, "RolledBack")).toMatchObject({ status: "False" });
    expect(condition(refused, "RolledBack")!.message).toMatch(
      /rollbackToVersion 99: the policy has no such version \(versions 1 to 4\); nothing was rolled back/,
    );
    expect(condition(refused, "Ready")).toMatchObject({ status: "False", reason: "UnknownVersion" });
    expect(await eventReasons("payments")).toContain("UnknownVersion");
    await twoResyncs();
    expect(await cloudSnapshot(policyId)).toEqual(before);
  });

  it("refuses a rollback to a version that was never active (a draft), visibly, and changes nothing", async () => {
    const before = await cloudSnapshot(policyId);
    await apply(withSpec({ document: candidate, rollbackToVersion: 2 }));
    const refused = await eventually("draft refused", async () => {
      const o = await policyState();
      return condition(o, "RolledBack")?.reason === "Refused" && o;
    });
    expect(condition(refused, "RolledBack")!.message).toMatch(/INVALID_STATE/);
    expect(condition(refused, "Ready")).toMatchObject({ status: "False", reason: "Refused" });
    await twoResyncs();
    expect(await cloudSnapshot(policyId)).toEqual(before);
  });

  it("rolls back to a declared version exactly once, however many resyncs, and shows it", async () => {
    await apply(withSpec({ document: candidate, rollbackToVersion: 1 }));
    const rolled = await eventually("rolled back", async () => {
      const o = await policyState();
      return condition(o, "RolledBack")?.status === "True" && condition(o, "Ready")?.status === "True" && o;
    });
    expect(rolled.status).toMatchObject({
      stage: "Enforce",
      activeVersion: { number: 5 },
      rollback: { toVersion: 1, version: 5, closedActions: 0 },
    });
    expect(condition(rolled, "RolledBack")!.message).toMatch(
      /version 1 restored as version 5 \(0 open action\(s\) closed\)/,
    );
    expect(await columns()).toEqual({ STAGE: "Enforce", ACTIVE: "5", SHADOW: "", READY: "True" });
    const detail = await policyDetail(policyId);
    expect(detail.versions.find((v: Json) => v.number === 5)).toMatchObject({
      status: "active",
      origin: "rollback",
      source_version_id: versionIds[1],
    });
    expect(detail.versions.find((v: Json) => v.number === 5).digest).toBe(
      detail.versions.find((v: Json) => v.number === 1).digest,
    );
    await twoResyncs();
    await twoResyncs();
    const rollbacks = await audit("policy.rolled_back");
    expect(rollbacks).toHaveLength(1);
    expect(rollbacks[0].actor).toMatchObject({ type: "operator", id: operatorUsername });
    expect((await policyDetail(policyId)).versions).toHaveLength(5);
    expect(await eventReasons("payments")).toContain("RolledBack");
  });

  it("resumes activating the document when rollbackToVersion is removed", async () => {
    await apply(withSpec({ document: candidate }));
    const resumed = await eventually("document active again", async () => {
      const o = await policyState();
      return o.status.activeVersion?.number === 6 && condition(o, "Ready")?.status === "True" && o;
    });
    expect(condition(resumed, "RolledBack")).toBeUndefined();
    expect(resumed.status.rollback).toBeUndefined();
    const detail = await policyDetail(policyId);
    expect(detail.versions.find((v: Json) => v.number === 6).digest).toBe(
      detail.versions.find((v: Json) => v.number === 3).digest,
    );
    expect(await audit("policy.rolled_back")).toHaveLength(1);
  });

  describe("observe windows", () => {
    const agentObject = (name: string) => ({
      apiVersion: "countersign.dev/v1alpha1",
      kind: "Agent",
      metadata: { name, namespace },
      spec: { policyRef: { name: "payments" } },
    });
    const agentIdOf = async (name: string): Promise<string> =>
      (await getJson(["get", `agent.countersign.dev/${name}`, "-n", namespace])).status.agentId;
    const openWindows = async (): Promise<Json[]> => {
      const res = await owner.get(`/orgs/${orgId}/observe-windows?state=open`);
      expect(res.status).toBe(200);
      return res.body.items;
    };
    const observe = (entries: Array<{ agent: string; hours: number }>) =>
      withSpec({ document: candidate, rollout: { stage: "Enforce", observe: entries } });

    it("waits for an Agent the operator has not reconciled yet, says so, and opens nothing", async () => {
      await apply(observe([{ agent: "payments-bot", hours: 4 }]));
      const waiting = await eventually("waiting for the agent", async () => {
        const o = await policyState();
        return condition(o, "ObserveWindows")?.reason === "AgentNotReconciled" && o;
      });
      expect(condition(waiting, "ObserveWindows")).toMatchObject({ status: "False" });
      expect(condition(waiting, "ObserveWindows")!.message).toMatch(/waiting for Agent payments-bot/);
      expect(condition(waiting, "Ready")).toMatchObject({ status: "False", reason: "AgentNotReconciled" });
      expect(await eventReasons("payments")).toContain("AgentNotReconciled");
      expect(await openWindows()).toEqual([]);
      expect(await audit("observe_window.started")).toEqual([]);
    });

    it("opens the window once the Agent is reconciled: stage Observe, the window in status, never reopened", async () => {
      await apply(agentObject("payments-bot"));
      const observing = await eventually(
        "stage Observe",
        async () => {
          const o = await policyState();
          return o.status.stage === "Observe" && condition(o, "Ready")?.status === "True" && o;
        },
        90_000,
      );
      const agentId = await agentIdOf("payments-bot");
      const [open] = await openWindows();
      expect(open).toMatchObject({ agent: { id: agentId, name: "payments-bot" }, hours: 4, live: false });
      expect(observing.status.observeWindows).toEqual([
        {
          agent: "payments-bot",
          agentId,
          windowId: open.id,
          hours: 4,
          endsAt: open.ends_at.replace(/\.\d{3}Z$/, "Z"),
          state: "open",
        },
      ]);
      expect(condition(observing, "ObserveWindows")).toMatchObject({ status: "True", reason: "Open" });
      expect(await columns()).toMatchObject({ STAGE: "Observe", ACTIVE: "6", READY: "True" });
      expect((await policyStatusItem(policyId)).stage).toBe("observe");
      expect(await eventReasons("payments")).toContain("ObserveStarted");
      await twoResyncs();
      const started = await audit("observe_window.started");
      expect(started).toHaveLength(1);
      expect(started[0].actor).toMatchObject({ type: "operator", id: operatorUsername });
      expect(await openWindows()).toHaveLength(1);
    });

    it("shows a window the Cloud API refuses (longer than observe_max_hours) and opens nothing for it", async () => {
      await apply(agentObject("refund-bot"));
      await eventually("refund-bot reconciled", async () => !!(await agentIdOf("refund-bot")));
      await apply(
        observe([
          { agent: "payments-bot", hours: 4 },
          { agent: "refund-bot", hours: 48 },
        ]),
      );
      const refused = await eventually("window refused", async () => {
        const o = await policyState();
        return condition(o, "ObserveWindows")?.reason === "ObserveRefused" && o;
      });
      expect(condition(refused, "ObserveWindows")!.message).toMatch(/refund-bot: OBSERVE_WINDOW_TOO_LONG/);
      expect(condition(refused, "Ready")).toMatchObject({ status: "False", reason: "ObserveRefused" });
      await twoResyncs();
      expect((await openWindows()).map((w) => w.agent.name)).toEqual(["payments-bot"]);
      expect(await audit("observe_window.started")).toHaveLength(1);
    });

    it("takes a window a person opened as the entry's, without extending it", async () => {
      const refundBotId = await agentIdOf("refund-bot");
      const opened = await owner.post(`/orgs/${orgId}/agents/${refundBotId}/observe`, {
        hours: 2,
        confirmation: "refund-bot",
      });
      expect(opened.status).toBe(201);
      await apply(
        observe([
          { agent: "payments-bot", hours: 4 },
          { agent: "refund-bot", hours: 8 },
        ]),
      );
      const both = await eventually("both windows shown", async () => {
        const o = await policyState();
        return o.status.observeWindows?.length === 2 && condition(o, "Ready")?.status === "True" && o;
      });
      expect(both.status.observeWindows[1]).toMatchObject({
        agent: "refund-bot",
        windowId: opened.body.observe_window.id,
        hours: 2,
        state: "open",
      });
      await twoResyncs();
      expect(await audit("observe_window.started")).toHaveLength(2); // the operator's and the person's
      expect((await openWindows()).find((w) => w.agent.name === "refund-bot").hours).toBe(2);
    });

    it("does not reopen a window that ended while its entry stays", async () => {
      const refundBotId = await agentIdOf("refund-bot");
      expect((await owner.post(`/orgs/${orgId}/agents/${refundBotId}/observe/end`)).status).toBe(200);
      const ended = await eventually("refund-bot's window shown ended", async () => {
        const o = await policyState();
        return o.status.observeWindows?.find((w: Json) => w.agent === "refund-bot")?.state === "ended" && o;
      });
      expect(condition(ended, "ObserveWindows")!.message).toMatch(/refund-bot: ended/);
      await twoResyncs();
      expect((await openWindows()).map((w) => w.agent.name)).toEqual(["payments-bot"]);
      expect(await audit("observe_window.started")).toHaveLength(2);
    });

    it("ends an agent's window when its entry is removed, and the stage returns to Enforce once none is open", async () => {
      await apply(observe([{ agent: "refund-bot", hours: 8 }]));
      const one = await eventually("payments-bot's window ended", async () => {
        const o = await policyState();
        return o.status.observeWindows?.length === 1 && o;
      });
      expect(one.status.observeWindows[0]).toMatchObject({ agent: "refund-bot", state: "ended" });
      expect(await openWindows()).toEqual([]);
      const ended = await owner.get(`/orgs/${orgId}/agents/${await agentIdOf("payments-bot")}/observe`);
      expect(ended.body.open).toBeNull();
      expect(ended.body.items[0]).toMatchObject({ state: "ended", end_reason: "ended" });
      expect(await eventReasons("payments")).toContain("ObserveEnded");

      await apply(observe([]));
      const enforced = await eventually("stage Enforce again", async () => {
        const o = await policyState();
        return o.status.stage === "Enforce" && !o.status.observeWindows && o;
      });
      expect(condition(enforced, "ObserveWindows")).toBeUndefined();
      expect(await openWindows()).toEqual([]);
      expect(await columns()).toMatchObject({ STAGE: "Enforce", ACTIVE: "6", READY: "True" });
      // payments-bot's by the operator, refund-bot's by the person; none ended twice.
      expect((await audit("observe_window.ended")).map((e) => e.actor.type).sort()).toEqual([
        "operator",
        "user",
      ]);
    });
  });

  it("shows a closed language gate (a revision-2 document, no Gateway reporting) and activates nothing", async () => {
    const before = await cloudSnapshot(policyId);
    const described = structuredClone(candidate);
    described.rules[0].description = "Large payments wait for a person";
    await apply(withSpec({ document: described }));
    const refused = await eventually("language gate closed", async () => {
      const o = await policyState();
      return condition(o, "Ready")?.reason === "GatewaysNotUpgraded" && o;
    });
    expect(refused.status.gates.language).toMatchObject({ passing: false });
    expect(condition(refused, "Ready")!.message).toMatch(/version 7 not activated/);
    await twoResyncs();
    expect(await cloudSnapshot(policyId)).toEqual({ ...before, versions: ["7:draft", ...before.versions] });
  });
});
