/**
 * Documents checked at admission, against a real kube-apiserver calling the operator's webhook over
 * TLS (the CA in the configuration's caBundle): `kubectl apply` of a Policy whose document the
 * Cloud API's validation refuses is refused with the path and reason of each problem (never the
 * submitted value) and nothing is stored; a valid one is admitted. A WebhookEndpoint with an
 * unknown event type is refused by the CRD schema (the event types are an enum there).
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import type { ControlPlane } from "../../test/control-plane/index.js";
import { eventually, kubectlOk } from "../../test/fixtures/kube.js";
import type { OperatorProcess } from "../../test/fixtures/operator.js";
import { startOperatorWorld, type OperatorWorld } from "../../test/fixtures/operator-world.js";
import { makeWebhookTls, type WebhookTls } from "../../test/fixtures/webhook-tls.js";

const namespace = "admission";
let world: OperatorWorld;
let plane: ControlPlane;
let tls: WebhookTls;
let operator: OperatorProcess;

const policy = (name: string, document: unknown) =>
  stringify({
    apiVersion: "countersign.dev/v1alpha1",
    kind: "Policy",
    metadata: { name, namespace },
    spec: { document },
  });
const applyText = (text: string) => plane.kubectl(["apply", "-f", "-"], { input: text });

beforeAll(async () => {
  world = await startOperatorWorld({ namespace });
  plane = world.plane;
  tls = makeWebhookTls();
  operator = world.startOperator("operator-admission", {
    env: { COUNTERSIGN_OPERATOR_WEBHOOK_CERT_DIR: tls.dir, COUNTERSIGN_OPERATOR_WEBHOOK_PORT: "0" },
  });
  const port = await eventually(
    "webhook port logged",
    async () =>
      operator.logs.find((l) => typeof l.webhookPort === "number")?.webhookPort as number | undefined,
  );
  // As the chart's ValidatingWebhookConfiguration, but at the test's address (no Service here).
  await kubectlOk(
    plane,
    ["apply", "-f", "-"],
    stringify({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "countersign-operator" },
      webhooks: [
        {
          name: "policies.countersign.dev",
          clientConfig: {
            url: `https://127.0.0.1:${port}/validate`,
            caBundle: Buffer.from(tls.caCert).toString("base64"),
          },
          rules: [
            {
              apiGroups: ["countersign.dev"],
              apiVersions: ["v1alpha1"],
              operations: ["CREATE", "UPDATE"],
              resources: ["policies"],
            },
          ],
          failurePolicy: "Fail",
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
          timeoutSeconds: 10,
        },
      ],
    }),
  );
}, 240_000);

afterAll(async () => {
  await world?.stop();
  if (tls) rmSync(tls.dir, { recursive: true, force: true });
});

describe("the admission webhook", { timeout: 120_000 }, () => {
  it("admits a valid Policy", async () => {
    const doc = {
      default_effect: "deny",
      rules: [{ id: "refunds", effect: "allow", tools: ["refunds.issue"] }],
    };
    // The apiserver picks the configuration up shortly after it is created.
    await eventually("valid Policy admitted", async () => (await applyText(policy("valid", doc))).code === 0);
  });

  it("refuses an invalid Policy at kubectl apply with the path of each problem, and stores nothing", async () => {
    const doc = {
      default_effect: "deny",
      rules: [
        { id: "r1", effect: "permit-everything", tools: ["x.y"] },
        {
          id: "r2",
          effect: "allow",
          tools: ["x.y"],
          conditions: [{ field: "amount", op: "lte", threshold: "not-a-number", currency: "USD" }],
        },
      ],
    };
    const res = await eventually("refused", async () => {
      const r = await applyText(policy("invalid", doc));
      return r.code !== 0 && r.stderr.includes("denied the request") && r;
    });
    expect(res.stderr).toContain(
      'admission webhook "policies.countersign.dev" denied the request: POLICY_INVALID',
    );
    expect(res.stderr).toContain("spec.document.rules.0.effect");
    expect(res.stderr).toContain("spec.document.rules.1.conditions.0.threshold");
    expect(res.stderr).not.toContain("permit-everything");
    expect(res.stderr).not.toContain("not-a-number");
    const stored = await plane.kubectl(["get", "policy.countersign.dev/invalid", "-n", namespace]);
    expect(stored.code).not.toBe(0);
    expect(stored.stderr).toContain("NotFound");
  });

  it("refuses an invalid rollout candidate on update, leaving the stored Policy as it was", async () => {
    const res = await applyText(
      stringify({
        apiVersion: "countersign.dev/v1alpha1",
        kind: "Policy",
        metadata: { name: "valid", namespace },
        spec: {
          document: {
            default_effect: "deny",
            rules: [{ id: "refunds", effect: "allow", tools: ["refunds.issue"] }],
          },
          rollout: { stage: "Shadow", candidate: { default_effect: "maybe", rules: [] } },
        },
      }),
    );
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("spec.rollout.candidate.default_effect");
    const stored = JSON.parse(
      await kubectlOk(plane, ["get", "policy.countersign.dev/valid", "-n", namespace, "-o", "json"]),
    );
    expect(stored.spec.rollout?.candidate).toBeUndefined();
  });

  it("refuses a WebhookEndpoint with an unknown event type, naming the field and the allowed types", async () => {
    const res = await applyText(
      stringify({
        apiVersion: "countersign.dev/v1alpha1",
        kind: "WebhookEndpoint",
        metadata: { name: "events", namespace },
        spec: {
          url: "https://hooks.example.com/countersign",
          events: ["receipt.created", "receipt.shredded"],
          secretName: "events-secret",
        },
      }),
    );
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("spec.events[1]");
    expect(res.stderr).toContain('Unsupported value: "receipt.shredded"');
    expect(res.stderr).toContain('"policy.activated"');
    const stored = await plane.kubectl(["get", "webhookendpoint.countersign.dev/events", "-n", namespace]);
    expect(stored.stderr).toContain("NotFound");
  });
});
