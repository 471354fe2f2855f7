-- Every identity row carries a revision, new at each change of the row. A
-- Gateway keeps the organization principal's identity log it last read, by
-- revision; the decision context sends the log again only when the row's
-- revision is not the one the Gateway holds (core/src/decision/context.ts),
-- so an appended, replaced or equivocated log is seen by the very next
-- decision of every replica. A sequence rather than xmin: transaction ids
-- wrap around, a bigint sequence never gives the same value twice. The
-- trigger runs on the rare identity changes, never on the decision path.
create sequence identity_revisions;
alter table identities add column revision bigint not null default nextval('identity_revisions');

create function identity_new_revision() returns trigger
language plpgsql as $$
begin
  new.revision := nextval('identity_revisions');
  return new;
end
$$;
create trigger identity_new_revision before update on identities
  for each row execute function identity_new_revision();
