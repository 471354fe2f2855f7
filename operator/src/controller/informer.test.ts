/**
 * The resilient informer against a real kube-apiserver: it keeps watching through an apiserver
 * outage (the library's informer alone stops at the first error), restarts with backoff, sees
 * objects created while it was down, and resyncs cached objects periodically.
 */
import { KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startControlPlane, type ControlPlane } from "../../../test/control-plane/index.js";
import { organizationObjects } from "../reconcilers/organization.js";
import { ResilientInformer, type InformerEvent } from "./informer.js";

let plane: ControlPlane;
const namespace = "informer-test";

beforeAll(async () => {
  plane = await startControlPlane();
  await plane.kubectl(["create", "namespace", namespace]);
}, 180_000);
afterAll(async () => {
  await plane?.stop();
});

async function until(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not reached`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const org = (name: string) =>
  stringify({
    apiVersion: "countersign.dev/v1alpha1",
    kind: "Organization",
    metadata: { name, namespace },
    spec: { organizationId: name },
  });

describe("ResilientInformer", { timeout: 180_000 }, () => {
  it("survives an apiserver outage: restarts with backoff and sees what changed meanwhile", async () => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(plane.kubeconfigPath);
    const objects = organizationObjects(kubeConfig, namespace);
    const seen: Array<[InformerEvent, string]> = [];
    const errors: number[] = [];
    let syncs = 0;
    const informer = new ResilientInformer({
      kubeConfig,
      path: objects.watchPath,
      list: () => objects.list(),
      resyncMs: 0,
      backoff: { baseMs: 200, maxMs: 1000 },
      onEvent: (event, o) => seen.push([event, o.metadata!.name!]),
      onError: (_error, retryInMs) => errors.push(retryInMs),
      onSynced: () => syncs++,
    });
    await plane.kubectl(["apply", "-f", "-"], { input: org("before") });
    await informer.start();
    expect(seen).toContainEqual(["add", "before"]);

    await plane.stopApiServer();
    await until("a failed watch is retried", () => errors.length >= 2);
    expect(errors.every((ms) => ms <= 1000)).toBe(true);
    await plane.startApiServer();
    await plane.kubectl(["apply", "-f", "-"], { input: org("after") });
    await until("the object created after the outage is seen", () =>
      seen.some(([e, n]) => e === "add" && n === "after"),
    );
    await plane.kubectl(["delete", "organization.countersign.dev/before", "-n", namespace]);
    await until("the deletion is seen", () => seen.some(([e, n]) => e === "delete" && n === "before"));
    expect(syncs).toBeGreaterThanOrEqual(1);
    expect(informer.list().map((o) => o.metadata!.name)).toEqual(["after"]);
    await informer.stop();
  });

  it("hands every cached object over again on each resync", async () => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(plane.kubeconfigPath);
    const objects = organizationObjects(kubeConfig, namespace);
    const resyncs: string[] = [];
    const informer = new ResilientInformer({
      kubeConfig,
      path: objects.watchPath,
      list: () => objects.list(),
      resyncMs: 300,
      onEvent: (event, o) => event === "resync" && resyncs.push(o.metadata!.name!),
    });
    await informer.start();
    await until("two resyncs", () => resyncs.length >= 2);
    expect(new Set(resyncs)).toEqual(new Set(["after"]));
    await informer.stop();
  });
});
