-- Evidence reading and data retention (SPEC 2.8, 8.7; docs/evidence-api.md,
-- docs/retention.md).

-- The verification report of a receipt's bundle as it was when issued. The
-- Gateway leaves it null (verifying on the hot path costs more than the
-- decision); the api's evidence worker verifies new receipts and stores it,
-- setting verified_at_issuance to its `valid`. Retention removes it.
alter table receipts add column verification_at_issuance jsonb;
-- The RECEIPT object's issued_at, kept when retention deletes the bundle so
-- 410 EVIDENCE_EXPIRED can still name it (SPEC 7.2). Filled from the bundle
-- by the evidence worker, or by retention at the latest.
alter table receipts add column issued_at timestamptz;
create index receipts_unverified_idx on receipts (created_at)
  where verification_at_issuance is null and evidence_deleted_at is null and bundle is not null;

-- When retention removed the action's operational data (arguments, error
-- details, upstream result, hosted signed objects, bundle). The action row
-- itself stays: decision, status, digests and ids are kept (SPEC 8.7).
alter table protected_actions add column evidence_deleted_at timestamptz;
create index protected_actions_retention_idx on protected_actions (organization_id, updated_at)
  where evidence_deleted_at is null and status not in ('pending_approval', 'approved', 'executing');
