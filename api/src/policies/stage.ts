import { policyDigest, requireApprovalDraft } from "@countersign/protocol/policy";
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
