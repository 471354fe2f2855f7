-- The monthly protected-action count of limited plans without one hot row.
-- Until now every decision of a limited organization incremented shard 0 and
-- held its row lock through the commit's flush, so an organization's
-- decisions queued one flush after another (about 1,200/s at most).
--
-- count_usage counts one protected action and says whether it was counted:
-- * far from the limit, in a random one of 16 shards, holding a shared
--   advisory lock of the organization and month: no row is shared, nothing
--   queues;
-- * within a margin of the limit, in shard 0 holding the exclusive advisory
--   lock, which waits until no far-path count is in flight, then reads the
--   committed total and counts only while it is under the limit.
-- The margin is the number of transactions that can be in flight at once
-- (max_connections + max_prepared_transactions), plus one. A far-path count
-- re-reads the total after taking its shared lock and goes ahead only when
-- the total plus the margin is still under the limit; the moment the
-- committed total reaches limit - margin, no further far-path count can
-- start, and the ones in flight (fewer than the margin) end before any
-- margin-path count runs. So the total never exceeds the limit, and a count
-- is refused only when the committed total, with nothing in flight, is at
-- the limit. A far-path count that finds itself inside the margin after its
-- lock cannot wait for the exclusive lock while holding the shared one (two
-- such would deadlock): it fails with SQLSTATE CSRTY, and the decision's
-- write is sent again, now taking the margin path (core/src/decision/record.ts).
-- Locks end with the transaction: the decision's rows and its count commit
-- together, and a write that fails (an idempotency race) counts nothing.
create function count_usage(p_organization uuid, p_limit bigint)
returns boolean
language plpgsql as $$
declare
  m date := date_trunc('month', now() at time zone 'utc')::date;
  gate bigint := hashtextextended(p_organization::text || m::text, 0);
  margin bigint;
  total bigint;
begin
  if p_limit is not null then
    margin := current_setting('max_connections')::bigint + current_setting('max_prepared_transactions')::bigint + 1;
    select coalesce(sum(protected_actions), 0) into total from usage_counters where organization_id = p_organization and month = m;
    if total + margin < p_limit then
      perform pg_advisory_xact_lock_shared(gate);
      select coalesce(sum(protected_actions), 0) into total from usage_counters where organization_id = p_organization and month = m;
      if total + margin >= p_limit then
        raise exception using errcode = 'CSRTY', message = 'the monthly count reached the margin of the limit; count again on the exact path';
      end if;
    else
      perform pg_advisory_xact_lock(gate);
      select coalesce(sum(protected_actions), 0) into total from usage_counters where organization_id = p_organization and month = m;
      if total >= p_limit then
        return false;
      end if;
      insert into usage_counters as u (organization_id, month, shard, protected_actions) values (p_organization, m, 0, 1)
      on conflict (organization_id, month, shard) do update set protected_actions = u.protected_actions + 1;
      return true;
    end if;
  end if;
  insert into usage_counters as u (organization_id, month, shard, protected_actions)
  values (p_organization, m, 1 + floor(random() * 16)::smallint, 1)
  on conflict (organization_id, month, shard) do update set protected_actions = u.protected_actions + 1;
  return true;
end
$$;
