import type { AuditEntry } from "@countersign/protocol/wire";
import type { Policy, PolicyVersion } from "../../api/policies.js";

/** The audit actions that mark a step of a policy's rollout (docs/spec.md 2.4, 3.5, 3.6). */
export const historyActions = [
  "policy.created",
  "policy.version_created",
  "policy.shadow_set",
  "policy.shadow_cleared",
  "policy.activated",
  "policy.emergency_stopped",
] as const;

export type StepKind = "created" | "shadowed" | "shadow_cleared" | "activated" | "superseded";

/** One step of a version's life: what happened, when, and (for those who may read the audit log) who. */
export interface Step {
  kind: StepKind;
  at: string;
  /** Who did it, from the audit log; undefined when it is not known to this reader. */
  by?: string;
  /** What the step adds in words: the version it copies, a rollback's restored version. */
  detail?: string;
}

export interface VersionHistory {
  version: PolicyVersion;
  steps: Step[];
  inForce: boolean;
  shadow: boolean;
}

const actorName = (e: AuditEntry): string =>
  e.actor.label ??
  (e.actor.type === "api_key"
    ? "a management key"
    : e.actor.type === "service"
      ? "the service"
      : e.actor.type);

const versionOf = (e: AuditEntry): string | undefined =>
  typeof e.details.version_id === "string" ? e.details.version_id : undefined;

/**
 * Each version, oldest first, with its steps in order. The versions give the times the service
 * keeps on every version (created, activated, superseded); the audit log, when the reader may see
 * it, adds who did each step and the shadow periods, which no version records.
 */
export function policyHistory(
  policy: Policy,
  versions: readonly PolicyVersion[],
  audit: readonly AuditEntry[] | null,
): VersionHistory[] {
  const own = (audit ?? []).filter((e) => e.target?.type === "policy" && e.target.id === policy.id);
  const numberOf = (id: string | null | undefined) => versions.find((v) => v.id === id)?.number;
  const find = (action: string, versionId: string) =>
    own.find((e) => e.action === action && versionOf(e) === versionId);
  return [...versions]
    .sort((a, b) => a.number - b.number)
    .map((v) => {
      const created = find("policy.version_created", v.id) ?? find("policy.created", v.id);
      const activated = find("policy.activated", v.id);
      const steps: Step[] = [
        {
          kind: "created",
          at: v.created_at,
          // A rollback's version is made by the activation that restores it: its actor made it.
          by: created
            ? actorName(created)
            : v.origin === "rollback" && activated
              ? actorName(activated)
              : undefined,
          detail:
            v.origin === "require_approval_copy"
              ? `the require-approval copy of version ${numberOf(v.source_version_id) ?? "?"}`
              : v.origin === "rollback"
                ? `restoring version ${numberOf(v.source_version_id) ?? "?"}`
                : v.origin === "template"
                  ? "from a template"
                  : undefined,
        },
      ];
      for (const e of own)
        if (
          (e.action === "policy.shadow_set" || e.action === "policy.shadow_cleared") &&
          versionOf(e) === v.id
        )
          steps.push({
            kind: e.action === "policy.shadow_set" ? "shadowed" : "shadow_cleared",
            at: e.created_at,
            by: actorName(e),
          });
      if (v.activated_at)
        steps.push({
          kind: "activated",
          at: v.activated_at,
          by: activated ? actorName(activated) : undefined,
          detail: activated?.details.trigger === "rollback" ? "a rollback" : undefined,
        });
      if (v.superseded_at) steps.push({ kind: "superseded", at: v.superseded_at });
      steps.sort((a, b) => a.at.localeCompare(b.at));
      return {
        version: v,
        steps,
        inForce: v.id === policy.active_version_id,
        shadow: v.id === policy.shadow_version_id,
      };
    });
}

/** The emergency stop in force, with who pulled it when the audit log says so. */
export function emergencyStop(
  policy: Policy,
  audit: readonly AuditEntry[] | null,
): { at: string; by?: string } | null {
  if (!policy.emergency_stopped_at) return null;
  const e = (audit ?? []).find((x) => x.action === "policy.emergency_stopped" && x.target?.id === policy.id);
  return { at: policy.emergency_stopped_at, by: e ? actorName(e) : undefined };
}
