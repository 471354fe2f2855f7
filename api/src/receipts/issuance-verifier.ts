import { sha256Digest } from "@countersign/protocol/canonical";
import { inTransaction, type Pool } from "@countersign/core/store";
import { verifyStoredBundle } from "./verify.js";

export const VERIFY_BATCH = 50;

/**
 * `verification_at_issuance` (SPEC 2.8; docs/evidence-api.md): the Gateway
 * stores receipts unverified (verifying on the hot path would cost more than
 * the decision), each queued in receipts_to_verify by the database (migration
 * 0031), and this verifies each new bundle once, soon after, storing the
 * report and its `valid` (`verified_at_issuance`) in receipt_verifications:
 * the receipt row itself is never written again. Claimed with SKIP LOCKED so
 * several api processes share the work; returns how many it did.
 */
export async function verifyNewReceipts(pool: Pool, now: Date, batch = VERIFY_BATCH): Promise<number> {
  return inTransaction(pool, async (db) => {
    const { rows } = await db.query<{
      id: string;
      organization_id: string;
      bundle: Buffer;
      bundle_sha256: string;
      bundle_size: number;
    }>(
      // The receipt's row is locked too: retention, which deletes a bundle and its report, waits for the report.
      `select r.id, r.organization_id, r.bundle, r.bundle_sha256, r.bundle_size
         from receipts_to_verify q join receipts r on r.id = q.receipt_id
        where r.evidence_deleted_at is null and r.bundle is not null
        order by q.receipt_id limit $1 for update skip locked`,
      [batch],
    );
    for (const r of rows) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(r.bundle.toString("utf8"));
      } catch {
        parsed = undefined;
      }
      const report = await verifyStoredBundle(db, r.organization_id, parsed, now);
      // Bytes that do not match the recorded hash are never vouched for, whatever they contain.
      const intact = r.bundle.byteLength === r.bundle_size && sha256Digest(r.bundle) === r.bundle_sha256;
      const stored = intact
        ? report
        : {
            ...report,
            valid: false,
            notes: [...report.notes, "the stored bytes do not match bundle_sha256"],
          };
      await db.query(
        `with verified as (
           insert into receipt_verifications (receipt_id, organization_id, report, valid) values ($1, $2, $3, $4)
         )
         delete from receipts_to_verify where receipt_id = $1`,
        [r.id, r.organization_id, JSON.stringify(stored), stored.valid],
      );
    }
    return rows.length;
  });
}
