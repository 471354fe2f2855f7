/**
 * The admission webhook's server over real TLS: it answers an AdmissionReview, refuses what is not
 * one, and serves a renewed certificate (as cert-manager writes into the mounted Secret) without a
 * restart.
 */
import { copyFileSync, rmSync } from "node:fs";
import https from "node:https";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { eventually } from "../../../test/fixtures/kube.js";
import { makeWebhookTls } from "../../../test/fixtures/webhook-tls.js";
import { createLogger } from "../log.js";
import { startAdmissionServer } from "./server.js";

const first = makeWebhookTls();
const renewed = makeWebhookTls();
const server = await startAdmissionServer({
  port: 0,
  host: "127.0.0.1",
  certDir: first.dir,
  log: createLogger("silent"),
  certCheckMs: 100,
});

afterAll(async () => {
  await server.close();
  for (const dir of [first.dir, renewed.dir]) rmSync(dir, { recursive: true, force: true });
});

function post(ca: string, body: string, urlPath = "/validate"): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: "127.0.0.1",
        port: server.port,
        path: urlPath,
        method: "POST",
        ca,
        // A new connection each time, so a renewed certificate is what is checked.
        agent: false,
        headers: { "content-type": "application/json" },
      },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const review = (document: unknown) =>
  JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "u-1",
      kind: { group: "countersign.dev", kind: "Policy" },
      operation: "CREATE",
      object: { spec: { document } },
    },
  });

describe("the admission server", () => {
  it("answers an AdmissionReview: allowed for a valid document, refused with the paths for an invalid one", async () => {
    const ok = await post(first.caCert, review({ default_effect: "deny", rules: [] }));
    expect(JSON.parse(ok.body)).toEqual({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: { uid: "u-1", allowed: true },
    });
    const bad = JSON.parse((await post(first.caCert, review({ default_effect: "sometimes" }))).body);
    expect(bad.response).toMatchObject({
      uid: "u-1",
      allowed: false,
      status: { code: 422, reason: "Invalid" },
    });
    expect(bad.response.status.message).toContain("spec.document.default_effect");
    expect(bad.response.status.message).not.toContain("sometimes");
  });

  it("refuses what is not an AdmissionReview, and other paths", async () => {
    expect((await post(first.caCert, "{not json")).status).toBe(400);
    expect((await post(first.caCert, review({}), "/other")).status).toBe(404);
  });

  it("serves a renewed certificate without a restart", async () => {
    await expect(post(renewed.caCert, review({ default_effect: "deny", rules: [] }))).rejects.toThrow();
    copyFileSync(path.join(renewed.dir, "tls.key"), path.join(first.dir, "tls.key"));
    copyFileSync(path.join(renewed.dir, "tls.crt"), path.join(first.dir, "tls.crt"));
    await eventually(
      "the renewed certificate served",
      async () => (await post(renewed.caCert, review({ default_effect: "deny", rules: [] }))).status === 200,
      10_000,
    );
    await expect(post(first.caCert, review({ default_effect: "deny", rules: [] }))).rejects.toThrow();
  });
});
