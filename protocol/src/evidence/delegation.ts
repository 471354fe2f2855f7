import { timeOf } from "./fields.js";
import type { SignedObject, BodyOf } from "./signed-object.js";

/**
 * Whether a permission grants an action: the exact name, a family
 * `prefix.*` (any action starting with `prefix.`), or `*` for all.
 */
export function permissionGrants(permission: string, action: string): boolean {
  if (permission === "*") return true;
  if (permission.endsWith(".*")) return action.startsWith(permission.slice(0, -1));
  return permission === action;
}

export type DelegationProblem =
  "DELEGATION_INVALID" | "DELEGATION_NOT_PERMITTED" | "DELEGATION_EXPIRED" | "DELEGATION_REVOKED";

/**
 * A delegation relied on by a step at `at`, for the agent and action of the
 * TASK and the principal the step acts for. Revocations are those known to
 * the caller (a bundle carries the ones its issuer knew at issuance). Pure,
 * so the Gateway's re-check and the offline verifier apply the same rule.
 */
export function checkDelegation(
  delegation: SignedObject<BodyOf<"DELEGATION">>,
  use: { principal: string; agentId: string; action: string; at: string },
  revocations: readonly SignedObject<BodyOf<"REVOCATION">>[],
): { ok: true } | { ok: false; code: DelegationProblem; message: string } {
  const { body } = delegation;
  if (body.actor !== use.principal) {
    return {
      ok: false,
      code: "DELEGATION_INVALID",
      message: "delegation is not signed by the principal the step acts for",
    };
  }
  if (body.payload.agent_id !== use.agentId) {
    return { ok: false, code: "DELEGATION_INVALID", message: "delegation is for another agent" };
  }
  const at = timeOf(use.at);
  if (timeOf(body.issued_at) > at)
    return { ok: false, code: "DELEGATION_INVALID", message: "delegation was issued after the step" };
  if (!body.payload.permissions.some((p) => permissionGrants(p, use.action))) {
    return {
      ok: false,
      code: "DELEGATION_NOT_PERMITTED",
      message: `delegation does not grant ${use.action}`,
    };
  }
  if (at >= timeOf(body.payload.expires_at)) {
    return {
      ok: false,
      code: "DELEGATION_EXPIRED",
      message: `delegation expired at ${body.payload.expires_at}`,
    };
  }
  // Only the delegation's own signer can revoke it.
  const revoked = revocations.find(
    (r) =>
      r.body.payload.delegation === delegation.id &&
      r.body.actor === body.actor &&
      timeOf(r.body.issued_at) <= at,
  );
  if (revoked)
    return {
      ok: false,
      code: "DELEGATION_REVOKED",
      message: `delegation revoked at ${revoked.body.issued_at}`,
    };
  return { ok: true };
}
