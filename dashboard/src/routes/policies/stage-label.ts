import type { RolloutStage } from "@countersign/protocol/wire";

/**
 * The rollout stage (SPEC 3.5) in words. The wire's `none` means no version is active (every call
 * is denied NO_POLICY); shown as such, and as a draft when one waits to be activated, never as
 * "none" beside an existing version.
 */
export function stageLabel(stage: RolloutStage, draftNumber?: number | null): string {
  if (stage === "none") return draftNumber ? `Draft version ${draftNumber} — not active` : "Not active";
  return stage.replace("_", " ");
}

/** The state word whose colour the stage's badge takes (theme/status.ts). */
export function stageStatus(stage: RolloutStage, draftNumber?: number | null): string {
  if (stage === "none") return draftNumber ? "draft" : "none";
  return stage === "require_approval" ? "pending" : stage;
}
