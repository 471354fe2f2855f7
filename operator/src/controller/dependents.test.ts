import type { KubernetesObject } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { ReferenceIndex, requeueDependents, type DependentsOf, type Watched } from "./dependents.js";
import type { InformerEvent } from "./informer.js";

type Listener<T> = (event: InformerEvent, object: T) => void;
const source = <T extends KubernetesObject>() => {
  const listeners: Listener<T>[] = [];
  return {
    onObject: (l: Listener<T>) => listeners.push(l),
    emit: (e: InformerEvent, o: T) => listeners.forEach((l) => l(e, o)),
  };
};
const object = (namespace: string, name: string, ref?: string) => ({
  metadata: { namespace, name },
  spec: { ref },
});

describe("ReferenceIndex", () => {
  it("answers the keys naming a reference, forgetting what a key no longer names", () => {
    const index = new ReferenceIndex();
    index.set("ns/a", ["ns/secret-1"]);
    index.set("ns/b", ["ns/secret-1", "ns/secret-2"]);
    expect(index.naming("ns/secret-1").sort()).toEqual(["ns/a", "ns/b"]);
    index.set("ns/b", ["ns/secret-2"]);
    expect(index.naming("ns/secret-1")).toEqual(["ns/a"]);
    index.delete("ns/a");
    expect(index.naming("ns/secret-1")).toEqual([]);
    expect(index.naming("ns/secret-2")).toEqual(["ns/b"]);
  });
});

describe("requeueDependents", () => {
  it("requeues exactly the dependents naming a changed object, in its namespace, not on resync", () => {
    const referenced = source<ReturnType<typeof object>>();
    const dependents = source<ReturnType<typeof object>>();
    const queued: string[] = [];
    requeueDependents({
      referenced: referenced as Watched<ReturnType<typeof object>>,
      dependent: { ...dependents, queue: { add: (k: string) => queued.push(k) } } as DependentsOf<
        ReturnType<typeof object>
      >,
      refsOf: (d) => (d.spec.ref ? [`${d.metadata.namespace}/${d.spec.ref}`] : []),
    });
    dependents.emit("add", object("a", "agent-1", "policy-x"));
    dependents.emit("add", object("a", "agent-2", "policy-y"));
    dependents.emit("add", object("b", "agent-3", "policy-x"));
    referenced.emit("update", object("a", "policy-x"));
    expect(queued).toEqual(["a/agent-1"]);
    referenced.emit("resync", object("a", "policy-x"));
    expect(queued).toEqual(["a/agent-1"]);
    dependents.emit("update", object("a", "agent-1", "policy-y"));
    referenced.emit("delete", object("a", "policy-x"));
    expect(queued).toEqual(["a/agent-1"]);
    referenced.emit("add", object("a", "policy-y"));
    expect(queued.slice(1).sort()).toEqual(["a/agent-1", "a/agent-2"]);
  });
});

describe("requeueDependents at start", () => {
  it("a list's add of an object older than the wiring requeues nothing (each dependent's first pass saw it); a new one does", () => {
    type Dated = {
      metadata: { namespace: string; name: string; creationTimestamp?: Date };
      spec: { ref?: string };
    };
    const referenced = source<Dated>();
    const dependents = source<Dated>();
    const queued: string[] = [];
    requeueDependents({
      referenced: referenced as Watched<Dated>,
      dependent: { ...dependents, queue: { add: (k: string) => queued.push(k) } } as DependentsOf<Dated>,
      refsOf: (d) => (d.spec.ref ? [`${d.metadata.namespace}/${d.spec.ref}`] : []),
    });
    dependents.emit("add", object("a", "agent-1", "policy-x"));
    const old = {
      ...object("a", "policy-x"),
      metadata: { namespace: "a", name: "policy-x", creationTimestamp: new Date("2026-01-01T00:00:00Z") },
    };
    referenced.emit("add", old);
    expect(queued).toEqual([]);
    // Later changes of that same object still requeue.
    referenced.emit("update", old);
    expect(queued).toEqual(["a/agent-1"]);
    const made = new Date(Date.now() + 5_000);
    referenced.emit("add", { ...old, metadata: { ...old.metadata, creationTimestamp: made } });
    expect(queued).toEqual(["a/agent-1", "a/agent-1"]);
  });
});

describe("requeueDependents of a spec", () => {
  it("specOnly: a status write of the referenced object requeues no one; a new generation or its deletion does", () => {
    type Versioned = {
      metadata: { namespace: string; name: string; generation?: number; deletionTimestamp?: Date };
      spec: { ref?: string };
    };
    const referenced = source<Versioned>();
    const dependents = source<Versioned>();
    const queued: string[] = [];
    requeueDependents({
      referenced: referenced as Watched<Versioned>,
      dependent: { ...dependents, queue: { add: (k: string) => queued.push(k) } } as DependentsOf<Versioned>,
      refsOf: (d) => (d.spec.ref ? [`${d.metadata.namespace}/${d.spec.ref}`] : []),
      specOnly: true,
    });
    dependents.emit("add", object("a", "tool-1", "org"));
    const org = (generation: number, deleting = false): Versioned => ({
      metadata: {
        namespace: "a",
        name: "org",
        generation,
        ...(deleting ? { deletionTimestamp: new Date() } : {}),
      },
      spec: {},
    });
    referenced.emit("add", org(1));
    expect(queued).toEqual(["a/tool-1"]);
    referenced.emit("update", org(1));
    expect(queued).toEqual(["a/tool-1"]);
    referenced.emit("update", org(2));
    expect(queued).toEqual(["a/tool-1", "a/tool-1"]);
    referenced.emit("update", org(2, true));
    expect(queued).toHaveLength(3);
    referenced.emit("delete", org(2, true));
    expect(queued).toHaveLength(4);
  });
});
