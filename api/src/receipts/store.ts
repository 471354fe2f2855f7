import { ServiceError } from "@countersign/protocol/errors";
import type { Queryable } from "@countersign/core/store";
import { ACTION_COLUMNS, ACTION_FROM, type ActionRow } from "../actions/store.js";

/** A receipt's summary record joined with its action (SPEC 2.8). */
export interface ReceiptRow extends ActionRow {
  r_id: string;
  kind: "execution" | "authorization" | "closure";
  receipt_object_id: string;
  thread_id: string;
  head_object_id: string;
  workflow: string;
  outcome: string;
  issuer_kid: string;
  bundle_sha256: string;
  bundle_size: number;
  verified_at_issuance: boolean | null;
  r_created_at: Date;
  r_evidence_deleted_at: Date | null;
}

export const RECEIPT_COLUMNS = `r.id as r_id, r.kind, r.receipt_object_id, r.thread_id, r.head_object_id, r.workflow, r.outcome, r.issuer_kid,
  r.bundle_sha256, r.bundle_size, r.verified_at_issuance, r.created_at as r_created_at, r.evidence_deleted_at as r_evidence_deleted_at, ${ACTION_COLUMNS}`;
export const RECEIPT_FROM = `receipts r join ${ACTION_FROM} on pa.id = r.protected_action_id`;

export async function readReceipt(db: Queryable, organizationId: string, id: string): Promise<ReceiptRow> {
  const { rows } = await db.query<ReceiptRow>(
    `select ${RECEIPT_COLUMNS} from ${RECEIPT_FROM} where r.id = $1 and r.organization_id = $2`,
    [id, organizationId],
  );
  if (!rows[0]) throw new ServiceError("NOT_FOUND", "receipt not found");
  return rows[0];
}

export interface ReceiptFilter {
  outcome?: string;
  kind?: ReceiptRow["kind"];
  agent_id?: string;
  protected_action_id?: string;
  /** `[created_at, id]` of the last item of the previous page. */
  after?: [string, string];
  limit: number;
}

/** Newest first, `limit` rows (the route asks one more to know whether a page follows). */
export async function listReceipts(
  db: Queryable,
  organizationId: string,
  f: ReceiptFilter,
): Promise<ReceiptRow[]> {
  const { rows } = await db.query<ReceiptRow>(
    `select ${RECEIPT_COLUMNS} from ${RECEIPT_FROM}
      where r.organization_id = $1 and ($2::text is null or r.outcome = $2) and ($3::text is null or r.kind = $3)
        and ($4::uuid is null or pa.agent_id = $4) and ($5::uuid is null or r.protected_action_id = $5)
        and ($6::timestamptz is null or (r.created_at, r.id) < ($6::timestamptz, $7::uuid))
      order by r.created_at desc, r.id desc limit $8`,
    [
      organizationId,
      f.outcome ?? null,
      f.kind ?? null,
      f.agent_id ?? null,
      f.protected_action_id ?? null,
      f.after?.[0] ?? null,
      f.after?.[1] ?? null,
      f.limit,
    ],
  );
  return rows;
}

/** A receipt's stored bundle bytes read together with its deletion mark and its report at issuance. */
export interface StoredBundle {
  bundle: Buffer | null;
  issued_at: Date | null;
  evidence_deleted_at: Date | null;
  verification_at_issuance: unknown;
}

export async function storedBundle(db: Queryable, receiptId: string): Promise<StoredBundle | undefined> {
  const { rows } = await db.query<StoredBundle>(
    "select bundle, issued_at, evidence_deleted_at, verification_at_issuance from receipts where id = $1",
    [receiptId],
  );
  return rows[0];
}

/** The KIDs trusted for an organization's bundles: this installation's Gateway and the organization's principals. */
export async function trustedIdentities(
  db: Queryable,
  organizationId: string,
): Promise<{ kid: string; kind: string }[]> {
  const { rows } = await db.query<{ kid: string; kind: string }>(
    "select kid, kind from identities where kind = 'gateway' or (kind = 'principal' and organization_id = $1)",
    [organizationId],
  );
  return rows;
}

export interface UnverifiedReceipt {
  id: string;
  organization_id: string;
  bundle: Buffer;
  bundle_sha256: string;
  bundle_size: number;
}

/** Claim (SKIP LOCKED) up to `batch` hosted receipts not verified at issuance yet, oldest first. */
export async function claimUnverifiedReceipts(db: Queryable, batch: number): Promise<UnverifiedReceipt[]> {
  const { rows } = await db.query<UnverifiedReceipt>(
    `select id, organization_id, bundle, bundle_sha256, bundle_size from receipts
      where verification_at_issuance is null and evidence_deleted_at is null and bundle is not null
      order by created_at limit $1 for update skip locked`,
    [batch],
  );
  return rows;
}

/** Store a receipt's verification at issuance (and its issued_at, when the row has none yet). */
export async function storeIssuanceVerification(
  db: Queryable,
  id: string,
  report: { valid: boolean },
  issuedAt: string | null,
): Promise<void> {
  await db.query(
    `update receipts set verification_at_issuance = $2, verified_at_issuance = $3,
            issued_at = coalesce(issued_at, $4::timestamptz) where id = $1`,
    [id, JSON.stringify(report), report.valid, issuedAt],
  );
}

/** The id of an action's stored PROPOSAL, if it has one. */
export async function proposalObjectIdOf(db: Queryable, actionId: string): Promise<string | null> {
  const { rows } = await db.query<{ proposal_object_id: string | null }>(
    "select proposal_object_id from protected_actions where id = $1",
    [actionId],
  );
  return rows[0]?.proposal_object_id ?? null;
}

/** A policy version's stored document and digest, within the organization. */
export async function storedPolicyVersion(
  db: Queryable,
  organizationId: string,
  versionId: string,
): Promise<{ document: unknown; digest: string } | undefined> {
  const { rows } = await db.query<{ document: unknown; digest: string }>(
    "select document, digest from policy_versions where id = $1 and organization_id = $2",
    [versionId, organizationId],
  );
  return rows[0];
}
