import { sha256Digest } from "@countersign/protocol/canonical";
import { ServiceError } from "@countersign/protocol/errors";
import type { Queryable } from "@countersign/core/store";
import { storedBundle, type ReceiptRow } from "./store.js";

/** SPEC 7.2: the hosted copy is gone; what was kept identifies it. */
function evidenceExpired(r: ReceiptRow, issuedAt: string | null): ServiceError {
  return new ServiceError(
    "EVIDENCE_EXPIRED",
    "the hosted copy of this receipt was deleted after the data retention period",
    {
      receipt_id: r.r_id,
      receipt_object_id: r.receipt_object_id,
      protected_action_id: r.id,
      outcome: r.outcome,
      bundle_sha256: r.bundle_sha256,
      bundle_size: r.bundle_size,
      issued_at: issuedAt,
      evidence_deleted_at: r.r_evidence_deleted_at!.toISOString(),
    },
  );
}

/**
 * The stored bundle bytes, re-read now and vouched for only when they still
 * hash to `bundle_sha256` and have `bundle_size` bytes (SPEC 2.8). Deleted by
 * retention: 410 EVIDENCE_EXPIRED. Missing or altered: a server-side error,
 * never a silently wrong file.
 */
export interface VouchedBundle {
  bytes: Buffer;
  /** The report stored by the evidence worker (null until it ran). */
  verificationAtIssuance: unknown;
}

export async function vouchedBundle(db: Queryable, r: ReceiptRow): Promise<VouchedBundle> {
  // One read of bytes and deletion mark together: retention between two reads must give 410, not a missing bundle.
  const row = await storedBundle(db, r.r_id);
  if (row?.evidence_deleted_at) {
    throw evidenceExpired(
      { ...r, r_evidence_deleted_at: row.evidence_deleted_at },
      row.issued_at?.toISOString() ?? null,
    );
  }
  const bytes = row?.bundle;
  if (!bytes)
    throw new ServiceError(
      "EVIDENCE_INTEGRITY_FAILED",
      "the stored bundle of this receipt is missing; this is a server-side problem",
    );
  if (bytes.byteLength !== r.bundle_size || sha256Digest(bytes) !== r.bundle_sha256) {
    throw new ServiceError(
      "EVIDENCE_INTEGRITY_FAILED",
      "the stored bundle of this receipt no longer matches its bundle_sha256; it is not served",
    );
  }
  return { bytes, verificationAtIssuance: row.verification_at_issuance };
}
