import { policyDigest, requireApprovalDraft } from "@countersign/protocol/policy";
import type { Queryable } from "@countersign/core/store";
import type { RolloutStage } from "@countersign/protocol/wire";
import type { VersionRow } from "./store.js";

/**
 * The rollout stage of SPEC 3.5, derived on every read, never stored:
 * observe (any agent of the policy has an open observe window; overrides the
 * others), require_approval (the active version is the require-approval copy
 * of the shadow, compared by digest, however the copy was made), shadow (a
 * shadow version is set), enforce, or none (no active version).
 */
export type { RolloutStage };

export function isRequireApprovalCopy(
  active: Pick<VersionRow, "digest">,
  shadow: Pick<VersionRow, "document">,
): boolean {
  return policyDigest(requireApprovalDraft(shadow.document)) === active.digest;
}

export function rolloutStage(s: {
  active: VersionRow | null;
  shadow: VersionRow | null;
  observing: boolean;
}): RolloutStage {
  if (!s.active) return "none";
  if (s.observing) return "observe";
  if (s.shadow && isRequireApprovalCopy(s.active, s.shadow)) return "require_approval";
  if (s.shadow) return "shadow";
  return "enforce";
}

/** Policies of the organization with an agent in an open observe window now. */
export async function observingPolicies(
  db: Queryable,
  organizationId: string,
  now: Date,
): Promise<Set<string>> {
  const { rows } = await db.query<{ policy_id: string }>(
    `select distinct a.policy_id from observe_windows w join agents a on a.id = w.agent_id
      where w.organization_id = $1 and w.ended_at is null and w.ends_at > $2 and a.policy_id is not null`,
    [organizationId, now],
  );
  return new Set(rows.map((r) => r.policy_id));
}
