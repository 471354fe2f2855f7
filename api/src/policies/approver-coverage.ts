import type { CompiledPolicy } from "@countersign/protocol/policy";
import type { UnapprovableRule } from "@countersign/protocol/wire";
import { resolveApprovers } from "@countersign/core/decision";
import type { Queryable } from "@countersign/core/store";
import { membersWithRoles } from "./store.js";

/**
 * Which approval requirements of a version no one can meet now. A call held by such a rule is
 * denied NO_APPROVERS (or TOO_MANY_APPROVERS) by the Gateway, final like any denial, instead of
 * waiting on the Approvals page; so the dashboard shows it where people look, with the step that
 * fixes it. Resolved exactly as the Gateway resolves a held call (core's resolveApprovers): enabled
 * members with one of the roles and an active personal identity.
 */
export interface ApprovalRequirement {
  rule_id: string | null;
  roles: string[];
  approver_count: number;
}

/** Every require_approval rule of the version, and its default when that holds calls. */
export function approvalRequirements(policy: CompiledPolicy): ApprovalRequirement[] {
  const decisions = [...policy.rules.map((r) => r.decision), policy.defaultDecision];
  return decisions
    .filter((d) => d.effect === "require_approval")
    .map((d) => ({
      rule_id: d.rule_id,
      // A rule naming no approvers resolves no one, as in the Gateway's pipeline.
      roles: [...(d.approvers?.roles ?? [])],
      approver_count: d.approvers?.count ?? 1,
    }));
}

export async function unapprovableRules(
  db: Queryable,
  organizationId: string,
  versionId: string,
  policy: CompiledPolicy,
): Promise<UnapprovableRule[]> {
  const out: UnapprovableRule[] = [];
  // Rules with the same approvers resolve the same way: asked once.
  const seen = new Map<string, { code: UnapprovableRule["code"]; members: number } | null>();
  for (const r of approvalRequirements(policy)) {
    const key = JSON.stringify([[...r.roles].sort(), r.approver_count]);
    if (!seen.has(key)) {
      const resolved = await resolveApprovers(db, organizationId, r.roles, r.approver_count);
      seen.set(
        key,
        resolved.ok
          ? null
          : { code: resolved.code, members: await membersWithRoles(db, organizationId, r.roles) },
      );
    }
    const gap = seen.get(key);
    if (gap) out.push({ version_id: versionId, ...r, code: gap.code, members_with_role: gap.members });
  }
  return out;
}
