// Watches between kinds: a resource that waits for another (an Agent for its Policy, a Tool for its
// MCPServer, any resource for its namespace's Organization) or reads a Secret is reconciled again
// when that object changes, and only it. An index from the referenced object's key to the keys of
// the resources naming it is kept from the dependents' own watch events, so an event is one map
// lookup, never a scan or a fixed timer.
import type { KubernetesObject } from "@kubernetes/client-node";
import type { InformerEvent } from "./informer.js";
import { objectKey } from "./controller.js";

export class ReferenceIndex {
  private readonly byRef = new Map<string, Set<string>>();
  private readonly byKey = new Map<string, string[]>();

  /** `key` names exactly `refs` now. */
  set(key: string, refs: readonly string[]): void {
    this.delete(key);
    this.byKey.set(key, [...refs]);
    for (const ref of refs) {
      let keys = this.byRef.get(ref);
      if (!keys) this.byRef.set(ref, (keys = new Set()));
      keys.add(key);
    }
  }

  delete(key: string): void {
    for (const ref of this.byKey.get(key) ?? []) {
      const keys = this.byRef.get(ref);
      keys?.delete(key);
      if (keys?.size === 0) this.byRef.delete(ref);
    }
    this.byKey.delete(key);
  }

  /** The keys of the resources naming `ref`. */
  naming(ref: string): string[] {
    return [...(this.byRef.get(ref) ?? [])];
  }
}

export interface Watched<T extends KubernetesObject> {
  onObject(listener: (event: InformerEvent, object: T) => void): void;
}

export interface DependentsOf<T extends KubernetesObject> extends Watched<T> {
  queue: { add(key: string): void };
}

/**
 * Requeues the `dependent` resources that name a `referenced` object. `refsOf` gives the keys a
 * dependent names ("namespace/name"); `refOf` the key an event of the referenced kind is looked up
 * under (default its own "namespace/name").
 */
export function requeueDependents<R extends KubernetesObject, D extends KubernetesObject>(o: {
  referenced: Watched<R>;
  dependent: DependentsOf<D>;
  refsOf: (dependent: D) => readonly string[];
  refOf?: (referenced: R) => string;
  /**
   * The dependents wait for the referenced object's spec (its generation) and deletion only, not
   * its status: a status write (an Organization's Ready after an outage) requeues no one.
   */
  specOnly?: boolean;
}): ReferenceIndex {
  const index = new ReferenceIndex();
  const wiredAt = Date.now();
  const seen = new Map<string, string>();
  const signature = (r: R) =>
    `${r.metadata?.generation ?? ""}/${r.metadata?.deletionTimestamp ? "deleting" : ""}`;
  o.dependent.onObject((event, d) => {
    if (event === "delete") index.delete(objectKey(d));
    else index.set(objectKey(d), o.refsOf(d));
  });
  o.referenced.onObject((event, r) => {
    // A periodic resync reaches every dependent through its own resync.
    if (event === "resync") return;
    // A (re)list hands over every object as "add". One that existed before the controllers were
    // wired was seen by each dependent's own first pass, which comes later: requeueing for it
    // would reconcile every object of a namespace twice on each start.
    if (o.specOnly) {
      const key = objectKey(r);
      const unchanged = event === "update" && seen.get(key) === signature(r);
      if (event === "delete") seen.delete(key);
      else seen.set(key, signature(r));
      if (unchanged) return;
    }
    if (event === "add" && createdBefore(r, wiredAt)) return;
    for (const key of index.naming(o.refOf ? o.refOf(r) : objectKey(r))) o.dependent.queue.add(key);
  });
  return index;
}

/**
 * Whether `object` was created before `at`, by the apiserver's clock: its whole seconds and a clock
 * a little apart from ours are allowed for (5 s), so a doubt requeues (one pass more, never one less).
 */
function createdBefore(object: KubernetesObject, at: number): boolean {
  const created = object.metadata?.creationTimestamp;
  if (created === undefined) return false;
  return new Date(created).getTime() + 5_000 <= at;
}

/** "namespace/name" of an object named by a reference in `of`'s namespace. */
export const sameNamespace = (of: KubernetesObject, name: string | undefined): string[] =>
  name ? [`${of.metadata?.namespace ?? ""}/${name}`] : [];
