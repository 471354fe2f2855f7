-- Decisions are written in batches (core/src/decision/record-batch.ts): one
-- transaction can now hold up to usage_counts_per_transaction() far-path
-- counts of one organization, not one. count_usage's margin is the number of
-- counts that can be in flight when a far-path count checks the total, so it
-- grows by that factor: once the committed total reaches limit - margin, no
-- new far-path count starts, and the ones in flight (fewer than the margin)
-- end before any margin-path count runs. A batch counts the decisions of an
-- unlimited plan once per organization, in its connection's shard
-- (count_shard, the one home of 0017's shard rule, which count_usage's far
-- path uses too) instead of one plpgsql call and one update of the same
-- shard row per decision. Everything else is as in 0017.
create or replace function usage_counts_per_transaction() returns integer
language sql immutable as $$ select 32 $$;

create or replace function usage_margin() returns bigint
language sql stable as $$
  select (current_setting('max_connections')::bigint + current_setting('max_prepared_transactions')::bigint + 1)
         * usage_counts_per_transaction()
$$;

create or replace function count_shard(p_organization uuid, p_count integer)
returns integer
language sql as $$
  insert into usage_counters as u (organization_id, month, shard, protected_actions)
  values (p_organization, date_trunc('month', now() at time zone 'utc')::date, (1 + pg_backend_pid() % 32000)::smallint, p_count)
  on conflict (organization_id, month, shard) do update set protected_actions = u.protected_actions + excluded.protected_actions
  returning p_count
$$;

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
    margin := usage_margin();
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
  perform count_shard(p_organization, 1);
  return true;
end
$$;
