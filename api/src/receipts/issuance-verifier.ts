import { sha256Digest } from "@countersign/protocol/canonical";
import { inTransaction, type Pool } from "@countersign/core/store";
import { claimUnverifiedReceipts, storeIssuanceVerification } from "./store.js";
import { verifyStoredBundle } from "./verify.js";

export const VERIFY_BATCH = 50;

/**
 * `verification_at_issuance` (SPEC 2.8; docs/evidence-api.md): the Gateway
 * stores receipts unverified (verifying on the hot path would cost more than
 * the decision), and this verifies each new bundle once, soon after, storing
 * the report and `verified_at_issuance` = its `valid`. Claimed with SKIP
 * LOCKED so several api processes share the work; returns how many it did.
 */
export async function verifyNewReceipts(pool: Pool, now: Date, batch = VERIFY_BATCH): Promise<number> {
  return inTransaction(pool, async (db) => {
    const rows = await claimUnverifiedReceipts(db, batch);
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
      const issuedAt = (parsed as { receipt?: { body?: { issued_at?: unknown } } } | undefined)?.receipt?.body
        ?.issued_at;
      await storeIssuanceVerification(
        db,
        r.id,
        stored,
        typeof issuedAt === "string" && !Number.isNaN(Date.parse(issuedAt)) ? issuedAt : null,
      );
    }
    return rows.length;
  });
}
