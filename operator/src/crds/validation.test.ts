/**
 * The CRD schemas against a real kube-apiserver: the samples of config/samples/ are accepted, and
 * every invalid field is refused with a message naming it, and nothing is stored.
 */
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseAllDocuments, stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startControlPlane, type ControlPlane } from "../../../test/control-plane/index.js";
import type { JsonBody } from "../../../test/fixtures/json.js";

const samplesDir = fileURLToPath(new URL("../../../config/samples/", import.meta.url));
const namespace = "payments-team";

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec: Record<string, unknown>;
};

function samples(): Obj[] {
  return readdirSync(samplesDir)
    .filter((f) => f.endsWith(".yaml"))
    .flatMap((f) => parseAllDocuments(readFileSync(samplesDir + f, "utf8")).map((d) => d.toJS() as Obj));
}

function sample(kind: string, name?: string): Obj {
  const found = samples().find((o) => o.kind === kind && (!name || o.metadata.name === name));
  if (!found) throw new Error(`no sample ${kind} ${name ?? ""}`);
  return structuredClone(found);
}

let plane: ControlPlane;

beforeAll(async () => {
  plane = await startControlPlane();
  await plane.kubectl(["create", "namespace", namespace]);
}, 180_000);
afterAll(async () => {
  await plane?.stop();
});

const resource = (o: Obj) => `${o.kind.toLowerCase()}.countersign.dev/${o.metadata.name}`;

describe("config/samples", () => {
  it("are all accepted and stored as written, with the schema's defaults filled in", async () => {
    const all = samples();
    expect(new Set(all.map((o) => o.kind))).toEqual(
      new Set(["Organization", "Agent", "MCPServer", "Tool", "Policy", "WebhookEndpoint"]),
    );
    const applied = await plane.kubectl(["apply", "-f", samplesDir]);
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    for (const o of all) {
      const got = await plane.kubectl(["get", "-n", namespace, resource(o), "-o", "json"]);
      expect(got.code, resource(o)).toBe(0);
      expect(JSON.parse(got.stdout).spec).toMatchObject(o.spec);
    }
    const policy = JSON.parse(
      (await plane.kubectl(["get", "-n", namespace, "policy.countersign.dev/payments", "-o", "json"])).stdout,
    );
    expect(policy.spec.rollout).toEqual({ stage: "Enforce", acknowledgeFailingExamples: false, observe: [] });
    expect(policy.spec.agentDisclosure).toBe("inherit");
    const refundWorker = JSON.parse(
      (await plane.kubectl(["get", "-n", namespace, "agent.countersign.dev/refund-worker", "-o", "json"]))
        .stdout,
    );
    expect(refundWorker.spec.disabled).toBe(false);
  });

  it("are listed by the countersign category and by short names, with the Policy columns", async () => {
    const all = await plane.kubectl(["get", "countersign", "-n", namespace, "-o", "name"]);
    expect(all.stdout.trim().split("\n")).toHaveLength(samples().length);
    const policies = await plane.kubectl(["get", "cspol", "-n", namespace]);
    expect(policies.stdout.split("\n")[0]!.split(/\s+/).filter(Boolean)).toEqual([
      "NAME",
      "STAGE",
      "ACTIVE",
      "SHADOW",
      "READY",
      "AGE",
    ]);
    const wide = await plane.kubectl(["get", "policies.countersign.dev", "-n", namespace, "-o", "wide"]);
    expect(wide.stdout.split("\n")[0]).toMatch(/MESSAGE/);
  });
});

interface Case {
  title: string;
  kind: string;
  name?: string;
  change: (spec: Record<string, JsonBody>) => void;
  /** Text the apiserver's refusal must contain (the field and what is wrong). */
  message: RegExp;
}

const cases: Case[] = [
  {
    title: "organizationId missing",
    kind: "Organization",
    change: (s) => delete s.organizationId,
    message: /spec.organizationId: Required value/,
  },
  {
    title: "approval lifetime below 60 s",
    kind: "Organization",
    change: (s) => (s.settings.approvalTtlSeconds = 59),
    message:
      /spec.settings.approvalTtlSeconds: Invalid value: 59: spec.settings.approvalTtlSeconds in body should be greater than or equal to 60/,
  },
  {
    title: "approval lifetime above 30 days",
    kind: "Organization",
    change: (s) => (s.settings.approvalTtlSeconds = 2_592_001),
    message: /approvalTtlSeconds in body should be less than or equal to 2592000/,
  },
  {
    title: "unknown agent disclosure",
    kind: "Organization",
    change: (s) => (s.settings.agentDisclosure = "everything"),
    message:
      /spec.settings.agentDisclosure: Unsupported value: "everything": supported values: "none", "rule", "conditions"/,
  },
  {
    title: "organization name with a newline",
    kind: "Organization",
    change: (s) => (s.settings.name = "two\nlines"),
    message: /spec.settings.name in body should match/,
  },
  {
    title: "organization name over 200 chars",
    kind: "Organization",
    change: (s) => (s.settings.name = "x".repeat(201)),
    message: /spec.settings.name: Too long: may not be (longer|more) than 200/,
  },
  {
    title: "agent name empty",
    kind: "Agent",
    change: (s) => (s.name = ""),
    message: /spec.name in body should be at least 1 chars long/,
  },
  {
    title: "gateway key environment",
    kind: "Agent",
    change: (s) => (s.gatewayKey.environment = "prod"),
    message: /spec.gatewayKey.environment: Unsupported value: "prod"/,
  },
  {
    title: "gateway key Secret name not a DNS name",
    kind: "Agent",
    change: (s) => (s.gatewayKey.secretName = "Not_A_Name"),
    message: /spec.gatewayKey.secretName in body should match/,
  },
  {
    title: "delegation without actions",
    kind: "Agent",
    change: (s) => (s.delegations[0].actions = []),
    message:
      /spec.delegations\[0\].actions: Invalid value: 0: spec.delegations\[0\].actions in body should have at least 1 items/,
  },
  {
    title: "delegation expiry not a time",
    kind: "Agent",
    change: (s) => (s.delegations[0].expiresAt = "next year"),
    message:
      /spec.delegations\[0\].expiresAt: Invalid value: "next year": spec.delegations\[0\].expiresAt in body must be of type date-time/,
  },
  {
    title: "two delegations with one name",
    kind: "Agent",
    change: (s) => s.delegations.push({ ...s.delegations[0] }),
    message: /spec.delegations\[1\]: Duplicate value/,
  },
  {
    title: "101 delegations",
    kind: "Agent",
    change: (s) =>
      (s.delegations = Array.from({ length: 101 }, (_, i) => ({
        name: `d${i}`,
        actions: ["a"],
        expiresAt: "2027-01-01T00:00:00Z",
      }))),
    message: /spec.delegations: Too many: 101: must have at most 100 items/,
  },
  {
    title: "MCP server without url",
    kind: "MCPServer",
    name: "payments-mcp",
    change: (s) => delete s.url,
    message: /url is required unless decisionOnly is true/,
  },
  {
    title: "MCP server over plain http",
    kind: "MCPServer",
    name: "payments-mcp",
    change: (s) => (s.url = "http://payments.example.com/mcp"),
    message: /spec.url in body should match/,
  },
  {
    title: "decision-only integration with a url",
    kind: "MCPServer",
    name: "refund-service",
    change: (s) => (s.url = "https://x.example.com"),
    message: /a decision-only integration has no url, credentialSecretRef or serverKid/,
  },
  {
    title: "tool exposed name over 128 chars",
    kind: "Tool",
    name: "issue-refund",
    change: (s) => (s.exposedName = "t".repeat(129)),
    message: /spec.exposedName: Too long: may not be (longer|more) than 128/,
  },
  {
    title: "tool without action",
    kind: "Tool",
    name: "issue-refund",
    change: (s) => delete s.action,
    message: /spec.action: Required value/,
  },
  {
    title: "amount with both currency and currencyPath",
    kind: "Tool",
    name: "send-payment",
    change: (s) => (s.amount.currencyPath = "$.currency"),
    message: /give exactly one of currency and currencyPath/,
  },
  {
    title: "amount with neither currency nor currencyPath",
    kind: "Tool",
    name: "send-payment",
    change: (s) => delete s.amount.currency,
    message: /give exactly one of currency and currencyPath/,
  },
  {
    title: "lowercase currency",
    kind: "Tool",
    name: "send-payment",
    change: (s) => (s.amount.currency = "usd"),
    message: /spec.amount.currency in body should match '\^\[A-Z\]\{3\}\$'/,
  },
  {
    title: "policy without document",
    kind: "Policy",
    change: (s) => delete s.document,
    message: /spec.document: Required value/,
  },
  {
    title: "example with an unknown outcome",
    kind: "Policy",
    change: (s) => (s.examples[0].expectedOutcome = "maybe"),
    message: /spec.examples\[0\].expectedOutcome: Unsupported value: "maybe"/,
  },
  {
    title: "example amount without currency",
    kind: "Policy",
    change: (s) => delete s.examples[0].currency,
    message: /an amount and its currency go together/,
  },
  {
    title: "example amount not a decimal",
    kind: "Policy",
    change: (s) => (s.examples[0].amount = "1e5"),
    message: /spec.examples\[0\].amount in body should match/,
  },
  {
    title: "201 examples",
    kind: "Policy",
    change: (s) =>
      (s.examples = Array.from({ length: 201 }, (_, i) => ({
        id: `e${i}`,
        action: "a",
        tool: "t",
        expectedOutcome: "none",
      }))),
    message: /spec.examples: Too many: 201: must have at most 200 items/,
  },
  {
    title: "Shadow without a candidate",
    kind: "Policy",
    change: (s) => (s.rollout = { stage: "Shadow" }),
    message: /rollout.candidate is required for Shadow and RequireApproval/,
  },
  {
    title: "a candidate with Enforce",
    kind: "Policy",
    change: (s) => (s.rollout = { stage: "Enforce", candidate: { default_effect: "deny", rules: [] } }),
    message: /rollout.candidate is only used with Shadow or RequireApproval/,
  },
  {
    title: "unknown rollout stage",
    kind: "Policy",
    change: (s) => (s.rollout = { stage: "Observe" }),
    message:
      /spec.rollout.stage: Unsupported value: "Observe": supported values: "Enforce", "Shadow", "RequireApproval"/,
  },
  {
    title: "observe window over 168 hours",
    kind: "Policy",
    change: (s) => (s.rollout = { observe: [{ agent: "invoice-bot", hours: 169 }] }),
    message: /spec.rollout.observe\[0\].hours in body should be less than or equal to 168/,
  },
  {
    title: "rollback while shadowing",
    kind: "Policy",
    change: (s) =>
      Object.assign(s, { rollbackToVersion: 2, rollout: { stage: "Shadow", candidate: { rules: [] } } }),
    message: /a rollback \(rollbackToVersion\) needs rollout.stage Enforce/,
  },
  {
    title: "rollback to version 0",
    kind: "Policy",
    change: (s) => (s.rollbackToVersion = 0),
    message: /spec.rollbackToVersion in body should be greater than or equal to 1/,
  },
  {
    title: "webhook description over 500 chars",
    kind: "WebhookEndpoint",
    change: (s) => (s.description = "d".repeat(501)),
    message: /spec.description: Too long: may not be (longer|more) than 500/,
  },
  {
    title: "webhook without events",
    kind: "WebhookEndpoint",
    change: (s) => (s.events = []),
    message: /spec.events in body should have at least 1 items/,
  },
  {
    title: "webhook event type unknown",
    kind: "WebhookEndpoint",
    change: (s) => (s.events = ["receipt.shredded"]),
    message: /spec.events\[0\]: Unsupported value: "receipt.shredded": supported values: "action.authorized"/,
  },
  {
    title: "webhook event listed twice",
    kind: "WebhookEndpoint",
    change: (s) => (s.events = ["receipt.created", "receipt.created"]),
    message: /spec.events\[1\]: Duplicate value: "receipt.created"/,
  },
  {
    title: "webhook over http",
    kind: "WebhookEndpoint",
    change: (s) => (s.url = "http://hooks.example.com"),
    message: /spec.url in body should match/,
  },
  {
    title: "an unknown field",
    kind: "Agent",
    change: (s) => (s.policy = "payments"),
    message: /unknown field "spec.policy"/,
  },
];

describe("an invalid field", () => {
  it.each(cases)("is refused: $title", async ({ kind, name, change, message }) => {
    const o = sample(kind, name);
    o.metadata = { name: `invalid-${Math.random().toString(36).slice(2, 10)}`, namespace };
    change(o.spec);
    const res = await plane.kubectl(["create", "-f", "-"], { input: stringify(o) });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(message);
    const stored = await plane.kubectl([
      "get",
      "-n",
      namespace,
      resource(o),
      "--ignore-not-found",
      "-o",
      "name",
    ]);
    expect(stored.stdout).toBe("");
  });

  it("refuses changing an Organization's organizationId and keeps the old one", async () => {
    const o = sample("Organization");
    o.spec.organizationId = "00000000-0000-4000-8000-000000000000";
    const res = await plane.kubectl(["apply", "-f", "-"], { input: stringify(o) });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/organizationId is immutable/);
    const got = JSON.parse((await plane.kubectl(["get", "-n", namespace, resource(o), "-o", "json"])).stdout);
    expect(got.spec.organizationId).toBe(sample("Organization").spec.organizationId);
  });
});
