import { ServiceError } from "@countersign/protocol/errors";
import { requireApprovalDraft, type LintResult } from "@countersign/protocol/policy";
import type { PolicyVersion, PolicyVersionCreate } from "@countersign/protocol/wire";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import { loadPolicy, loadVersion, versionJson, type VersionRow } from "./store.js";
import { insertVersion, validDocument } from "./versions.js";

/**
 * Adds a draft version to a policy (SPEC 4.5): a submitted document, or the
 * require-approval copy of SPEC 3.5 derived by the engine from a version of
 * the policy (`require_approval_copy_of`; one not of this policy is 422
 * POLICY_NOT_FOUND). The policy is locked while the version is numbered.
 */
export async function createVersion(
  pool: Pool,
  q: { organizationId: string; policyId: string; body: PolicyVersionCreate; actor: Actor },
): Promise<{ version: PolicyVersion; lint: LintResult }> {
  const b = q.body;
  return inTransaction(pool, async (db) => {
    const p = await loadPolicy(db, q.organizationId, q.policyId, true);
    let doc: ReturnType<typeof validDocument>;
    let source: VersionRow | null = null;
    if ("document" in b) doc = validDocument(b.document);
    else {
      source = await loadVersion(db, p.id, b.require_approval_copy_of).catch(() => {
        throw new ServiceError(
          "POLICY_NOT_FOUND",
          "require_approval_copy_of names no version of this policy",
          {
            issues: [
              {
                path: "require_approval_copy_of",
                code: "not_found",
                message: "no such version of this policy",
              },
            ],
          },
        );
      });
      doc = validDocument(requireApprovalDraft(source.document));
    }
    const v = await insertVersion(db, {
      organizationId: q.organizationId,
      policyId: p.id,
      document: doc.document,
      digest: doc.digest,
      revision: doc.revision,
      note: b.note ?? null,
      origin: source ? "require_approval_copy" : "document",
      sourceVersionId: source?.id ?? null,
      createdBy: q.actor.label,
    });
    await audit(db, {
      organizationId: q.organizationId,
      action: "policy.version_created",
      actor: q.actor,
      target: { type: "policy", id: p.id },
      details: { version_id: v.id, version: v.number, digest: v.digest, origin: v.origin },
    });
    return { version: versionJson(v, true), lint: doc.lint };
  });
}
