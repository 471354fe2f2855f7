-- The evidence worker's verification of a new receipt (SPEC 2.8
-- `verification_at_issuance`, `verified_at_issuance`) in a row of its own,
-- instead of an update of the receipt. An update writes the whole row again:
-- with the bundle kept in the row (0030) the worker's update copied it, and
-- pushed it out to TOAST once the report made the row too long, moving to
-- the worker the work 0030 took off the decision and adding a dead ~3.5 kB row
-- per receipt. A receipt row is now written once, and changed only when
-- retention deletes its bundle.
--
-- Which receipts wait for the worker: a row in receipts_to_verify, written by
-- a statement trigger on receipts (one call per statement, reading the
-- statement's new rows, as 0015 does for events), so that every way a receipt
-- is written queues it. It replaces the partial index receipts_unverified_idx,
-- whose entries the worker's update removed.
create table receipt_verifications (
  receipt_id uuid primary key,
  organization_id uuid not null,
  report jsonb not null,
  valid boolean not null,
  created_at timestamptz not null default now()
);

create table receipts_to_verify (
  receipt_id uuid primary key
);

insert into receipt_verifications (receipt_id, organization_id, report, valid)
  select id, organization_id, verification_at_issuance,
         coalesce(verified_at_issuance, (verification_at_issuance->>'valid')::boolean, false)
    from receipts
   where verification_at_issuance is not null;
insert into receipts_to_verify (receipt_id)
  select id from receipts
   where verification_at_issuance is null and evidence_deleted_at is null and bundle is not null;

drop index receipts_unverified_idx;
alter table receipts drop column verification_at_issuance;
alter table receipts drop column verified_at_issuance;

create function queue_receipt_verifications() returns trigger
language plpgsql as $$
begin
  insert into receipts_to_verify (receipt_id)
    select n.id from new_receipts n where n.bundle is not null;
  return null;
end
$$;

create trigger receipts_queue_verification
  after insert on receipts
  referencing new table as new_receipts
  for each statement execute function queue_receipt_verifications();
