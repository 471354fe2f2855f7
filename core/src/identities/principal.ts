import { ServiceError } from "@countersign/protocol/errors";
import {
  acceptIdentityDocument,
  verifyIdentityDocument,
  type IdentityDocument,
} from "@countersign/protocol/evidence";
import type { Queryable } from "../store/queryable.js";
import { principalOf, storedIdentity, type StoredIdentity } from "./identity-store.js";
import { insertPrincipalRow, markEquivocated, retireIdentity, saveLog } from "./principal-store.js";

export interface PrincipalSubmission {
  organizationId: string;
  /** A new principal's first document (seq 0), or the next document of the current principal's log. */
  document: unknown;
  /**
   * On a replacement, optionally the current principal's own next document
   * saying `replaced` by the new KID (signed with the old key). Without it the
   * old principal is still marked replaced: an owner may replace a principal
   * whose key was lost.
   */
  predecessor?: unknown;
}

export type PrincipalOutcome =
  | { outcome: "created" | "replaced" | "updated" | "unchanged"; principal: StoredIdentity }
  /** The document conflicts with the stored log: recorded as proof; the caller commits, then answers IDENTITY_EQUIVOCATION. */
  | { outcome: "equivocation"; kid: string; message: string };

function verified(doc: unknown, what: string): IdentityDocument {
  const v = verifyIdentityDocument(doc);
  if (!v.ok) throw new ServiceError("IDENTITY_INVALID", `${what}: ${v.message}`);
  if (v.document.body.actor_type !== "principal") {
    throw new ServiceError(
      "IDENTITY_WRONG_ACTOR_TYPE",
      `${what} is not a principal identity (actor_type ${v.document.body.actor_type})`,
    );
  }
  return v.document;
}

/**
 * An owner registers, replaces, restates or revokes the organization principal
 * (SPEC 2.1). Call inside a transaction that has locked the organization row.
 * Refusals throw and change nothing; an equivocation is the exception: the
 * conflicting document is stored and the identity marked `equivocated` for
 * good, because the conflict is proof that the key signed two histories.
 */
export async function submitPrincipal(db: Queryable, s: PrincipalSubmission): Promise<PrincipalOutcome> {
  const doc = verified(s.document, "the principal document");
  const { subject } = doc.body;
  if (subject.organization_id !== s.organizationId || subject.id !== s.organizationId) {
    throw new ServiceError(
      "IDENTITY_INVALID",
      "a principal's subject names this organization as organization_id and id",
    );
  }
  const existing = await storedIdentity(db, doc.body.kid, true);
  if (existing && (existing.kind !== "principal" || existing.organizationId !== s.organizationId)) {
    throw new ServiceError("IDENTITY_ALREADY_BOUND", "this key is already another identity");
  }
  if (existing) return nextDocument(db, existing, doc);
  if (s.predecessor !== undefined && doc.body.seq !== 0)
    throw new ServiceError("IDENTITY_INVALID", "a replacement starts a new log (seq 0)");
  if (doc.body.seq !== 0 || doc.body.status !== "active") {
    throw new ServiceError("IDENTITY_INVALID", "a new principal's document is seq 0 with status active");
  }
  const current = await principalOf(db, s.organizationId);
  if (!current) {
    if (doc.body.replaces !== null)
      throw new ServiceError("IDENTITY_INVALID", "the organization has no principal to replace");
    if (s.predecessor !== undefined)
      throw new ServiceError(
        "IDENTITY_INVALID",
        "there is no current principal to sign a predecessor document",
      );
    return { outcome: "created", principal: await insertPrincipal(db, s.organizationId, doc) };
  }
  if (doc.body.replaces !== current.kid) {
    throw new ServiceError(
      "CONFLICT",
      `the organization already has a principal; a replacement names it in replaces (${current.kid})`,
      { reason: "PRINCIPAL_EXISTS", current_kid: current.kid },
    );
  }
  if (s.predecessor !== undefined) {
    const prev = verified(s.predecessor, "the predecessor document");
    if (
      prev.body.kid !== current.kid ||
      prev.body.status !== "replaced" ||
      prev.body.replaced_by !== doc.body.kid
    ) {
      throw new ServiceError(
        "IDENTITY_INVALID",
        "the predecessor document is the current principal's next document, replaced by the new KID",
      );
    }
    const accepted = acceptIdentityDocument(current.documents, prev);
    if (accepted.outcome === "invalid")
      throw new ServiceError("IDENTITY_INVALID", `the predecessor document: ${accepted.message}`);
    if (accepted.outcome === "equivocation") return equivocate(db, current, prev, accepted.message);
    if (accepted.outcome === "accepted") await saveLog(db, current.kid, accepted.state.documents, null);
  }
  // An equivocated principal stays equivocated (it is proof); an active one is retired.
  if (current.status === "active") {
    await retireIdentity(db, current.kid);
  }
  return { outcome: "replaced", principal: await insertPrincipal(db, s.organizationId, doc) };
}

async function nextDocument(
  db: Queryable,
  existing: StoredIdentity,
  doc: IdentityDocument,
): Promise<PrincipalOutcome> {
  if (existing.status === "equivocated") {
    throw new ServiceError(
      "IDENTITY_EQUIVOCATION",
      "this principal's documents conflict; it is permanently invalid: register a replacement",
    );
  }
  const accepted = acceptIdentityDocument(existing.documents, doc);
  if (accepted.outcome === "invalid") throw new ServiceError("IDENTITY_INVALID", accepted.message);
  if (accepted.outcome === "equivocation") return equivocate(db, existing, doc, accepted.message);
  if (accepted.outcome === "duplicate") return { outcome: "unchanged", principal: existing };
  if (existing.status !== "active")
    throw new ServiceError("IDENTITY_INVALID", `this principal is ${existing.status}; its log is closed`);
  if (doc.body.status === "replaced") {
    throw new ServiceError(
      "IDENTITY_INVALID",
      "submit a replacement as the new principal's document with this one as predecessor",
    );
  }
  const status = doc.body.status === "revoked" ? "revoked" : null;
  await saveLog(db, existing.kid, accepted.state.documents, status);
  return { outcome: "updated", principal: (await storedIdentity(db, existing.kid))! };
}

/** The conflicting document is stored with the log, and the identity is equivocated for good. */
async function equivocate(
  db: Queryable,
  existing: StoredIdentity,
  conflicting: IdentityDocument,
  message: string,
): Promise<PrincipalOutcome> {
  await markEquivocated(db, existing.kid, [...existing.documents, conflicting]);
  return { outcome: "equivocation", kid: existing.kid, message };
}

async function insertPrincipal(
  db: Queryable,
  organizationId: string,
  doc: IdentityDocument,
): Promise<StoredIdentity> {
  await insertPrincipalRow(db, organizationId, doc);
  return (await storedIdentity(db, doc.body.kid))!;
}
