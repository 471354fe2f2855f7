-- A delegation row's signed object never changes (revocation writes its own
-- columns): a Gateway keeps the objects of an agent's delegations by row id
-- and the decision context sends only those it does not hold. The database
-- enforces what that relies on, whoever writes.
create function delegation_object_unchanged() returns trigger
language plpgsql as $$
begin
  raise exception 'the signed object of delegation % cannot change', old.id
    using errcode = 'integrity_constraint_violation';
end
$$;
create trigger delegation_object_unchanged before update of object, object_id on delegations
  for each row when (new.object is distinct from old.object or new.object_id is distinct from old.object_id)
  execute function delegation_object_unchanged();
