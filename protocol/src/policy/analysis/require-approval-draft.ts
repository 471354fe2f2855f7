import { DEFAULT_APPROVERS, type PolicyDocument, type Rule } from "../document/schema.js";

/**
 * The require-approval draft derived from a shadowed target (SPEC 3.5):
 * every deny rule becomes a require_approval rule with the same id, approvers
 * roles owner and admin, `guard` true, placed first (in their original order);
 * the other rules are unchanged; the default becomes require_approval. It is
 * revision 2 when the target had any deny rule (guard is a revision-2 member).
 *
 * Under the engine's precedence this draft decides every call with the same
 * rule as the target, holding for approval what the target would deny.
 */
export function requireApprovalDraft(target: PolicyDocument): PolicyDocument {
  const denies = target.rules.filter((r) => r.effect === "deny");
  const converted = denies.map((r): Rule => {
    const { approvers: _a, approval_ttl_seconds: _t, ...rest } = r;
    return {
      ...rest,
      effect: "require_approval",
      approvers: { roles: [...DEFAULT_APPROVERS.roles] },
      guard: true,
    };
  });
  const wasApproval = (target.default_effect ?? "deny") === "require_approval";
  const draft: PolicyDocument = {
    ...target,
    default_effect: "require_approval",
    rules: [...converted, ...target.rules.filter((r) => r.effect !== "deny")],
  };
  if (!wasApproval) {
    delete draft.default_approvers;
    delete draft.default_approval_ttl_seconds;
  }
  if (denies.length > 0) draft.revision = 2;
  return draft;
}
