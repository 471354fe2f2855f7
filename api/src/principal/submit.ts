import {
  submitPrincipal,
  type PrincipalOutcome,
  type PrincipalSubmission,
} from "@countersign/core/identities";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import { lockOrganization } from "../orgs/store.js";

const AUDIT_ACTIONS = {
  created: "principal.registered",
  replaced: "principal.replaced",
  updated: "principal.updated",
  equivocation: "principal.equivocated",
} as const;

/**
 * Submit the organization's principal document (SPEC 2.1): registered, replaced, updated or, for a
 * conflicting document, kept as proof of equivocation; each outcome but "unchanged" is audited.
 * Submissions of one organization are serialized on its row.
 */
export async function submitOrganizationPrincipal(
  pool: Pool,
  q: PrincipalSubmission & { actor: Actor },
): Promise<PrincipalOutcome> {
  return inTransaction(pool, async (db) => {
    await lockOrganization(db, q.organizationId);
    const out = await submitPrincipal(db, q);
    if (out.outcome !== "unchanged") {
      const kid = out.outcome === "equivocation" ? out.kid : out.principal.kid;
      await audit(db, {
        organizationId: q.organizationId,
        action: AUDIT_ACTIONS[out.outcome],
        actor: q.actor,
        target: { type: "identity", id: kid },
      });
    }
    return out;
  });
}
