// A rollback declared in Git (spec.rollbackToVersion: N, SPEC 3.6). What is declared is a state,
// "version N's content is in force", not an event: the operator rolls back (POST .../rollback,
// open_actions keep) only while the active version's digest differs from version N's. After the
// rollback the active version is a copy of N with N's digest, so later passes do nothing: one
// rollback per declared value. Should someone activate another version outside Git while the field
// is set, the next pass rolls back again, as any drift is repaired. An unknown N changes nothing.
import type { CloudApi } from "../cloud-api/index.js";
import type { Policy, PolicyVersion, Rollback } from "../cloud-api/policies.js";

export type RollbackOutcome =
  | { state: "unknown_version"; message: string }
  /** N's content is active; `made` is the rollback this pass made, if it made one. */
  | { state: "in_force"; active: PolicyVersion; made?: Rollback };

export async function bringAboutRollback(o: {
  api: CloudApi["policies"];
  orgId: string;
  detail: { policy: Policy; versions: PolicyVersion[] };
  toVersion: number;
  note: string;
}): Promise<RollbackOutcome> {
  const { policy, versions } = o.detail;
  const target = versions.find((v) => v.number === o.toVersion);
  if (!target) {
    const newest = versions.reduce((n, v) => Math.max(n, v.number), 0);
    return {
      state: "unknown_version",
      message: `rollbackToVersion ${o.toVersion}: the policy has no such version (${
        newest ? `versions 1 to ${newest}` : "no versions yet"
      }); nothing was rolled back`,
    };
  }
  const active = versions.find((v) => v.id === policy.active_version_id);
  if (active && active.digest === target.digest) return { state: "in_force", active };
  // Refusals (INVALID_STATE for a version never activated, ACTIVE_VERSION_CHANGED, ...) are thrown.
  const made = await o.api.rollback(o.orgId, policy.id, {
    expected_active_version_id: policy.active_version_id,
    to_version_id: target.id,
    note: o.note,
    open_actions: "keep",
  });
  return { state: "in_force", active: made.version, made };
}
