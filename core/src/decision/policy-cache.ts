import { compilePolicy, parsePolicy, type CompiledPolicy } from "@countersign/protocol/policy";
import type { Queryable } from "../store/queryable.js";
import { policyDocument } from "./policy-store.js";

/**
 * Compiled policy documents by version id. A version's document never changes
 * (SPEC 2.4: versions are never edited or deleted), so an entry never goes
 * stale; which version is active is read on every call with the decision
 * context, so activation takes effect on the next call without invalidation.
 * `null` caches a stored document that no longer compiles (INVALID_POLICY).
 */
export class PolicyCache {
  private readonly entries = new Map<string, CompiledPolicy | null>();

  constructor(private readonly capacity = 2000) {}

  async get(db: Queryable, versionId: string): Promise<CompiledPolicy | null> {
    const hit = this.entries.get(versionId);
    if (hit !== undefined) {
      // Refresh the entry's position: Map iteration order is the eviction order.
      this.entries.delete(versionId);
      this.entries.set(versionId, hit);
      return hit;
    }
    const { rows } = await policyDocument(db, versionId);
    let compiled: CompiledPolicy | null;
    try {
      compiled = rows[0] ? compilePolicy(parsePolicy(rows[0].document)) : null;
    } catch {
      compiled = null;
    }
    this.entries.set(versionId, compiled);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return compiled;
  }
}
