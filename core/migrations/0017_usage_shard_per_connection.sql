-- The far-path count of count_usage in a shard of its own connection instead
-- of a random one of 16. A count holds its shard's row lock until its
-- transaction commits, which waits for the WAL flush; with 16 random shards
-- and 50 connections, decisions of one organization still queued behind each
-- other's flush on a shared row (pg_stat_statements under `make profile`:
-- the counter's upsert was 1.5 ms of the decision write's 2.6 ms). A
-- connection runs one transaction at a time, so a shard chosen by the
-- backend's process id is only shared by two concurrent transactions whose
-- pids collide modulo 32,000 (a rare wait, never a wrong count). The number
-- of rows is bounded by the distinct pids that counted (pooled connections
-- live long); totals are sums over the organization and month, as before.
-- The margin path is unchanged (shard 0 under the exclusive advisory lock).
create or replace function count_usage(p_organization uuid, p_limit bigint)
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
  values (p_organization, m, (1 + pg_backend_pid() % 32000)::smallint, 1)
  on conflict (organization_id, month, shard) do update set protected_actions = u.protected_actions + 1;
  return true;
end
$$;
