-- count_usage_many (0030) counted an unlimited plan's decisions, and a limited
-- plan's far from the limit, with `perform count_shard(...)`: plpgsql runs a
-- PERFORM as a query of its own (SELECT count_shard(...)) whose executor is
-- started and ended at every call, and count_shard is one more plpgsql frame
-- around the upsert. A decision's single write called count_usage, which
-- called count_usage_many, which called count_shard: three nested functions
-- for one upsert. `perf` on a backend writing decisions one at a time put
-- plpgsql at 10.8% of its CPU. The shard's upsert now runs in
-- count_usage_many itself, which the writes call directly
-- (core/src/decision/record.ts, record-batch.ts).
--
-- count_shard and count_usage stay, as the one-line cases of
-- count_usage_many, for Gateway processes of the previous version that call
-- them while a rolling upgrade replaces them. The shard rule (1 + the
-- backend's pid modulo 32,000, 0017) has its one home here.
create or replace function count_usage_many(p_organization uuid, p_limit bigint, p_count integer)
returns integer
language plpgsql as $$
declare
  m date := date_trunc('month', now() at time zone 'utc')::date;
  gate bigint;
  margin bigint;
  total bigint;
  fits integer;
begin
  if p_count > usage_counts_per_transaction() then
    raise exception 'a transaction counts at most % decisions on the far path', usage_counts_per_transaction();
  end if;
  if p_limit is not null then
    gate := hashtextextended(p_organization::text || m::text, 0);
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
      fits := greatest(0, least(p_count::bigint, p_limit - total))::integer;
      if fits > 0 then
        insert into usage_counters as u (organization_id, month, shard, protected_actions) values (p_organization, m, 0, fits)
        on conflict (organization_id, month, shard) do update set protected_actions = u.protected_actions + excluded.protected_actions;
      end if;
      return fits;
    end if;
  end if;
  insert into usage_counters as u (organization_id, month, shard, protected_actions)
  values (p_organization, m, (1 + pg_backend_pid() % 32000)::smallint, p_count)
  on conflict (organization_id, month, shard) do update set protected_actions = u.protected_actions + excluded.protected_actions;
  return p_count;
end
$$;

create or replace function count_shard(p_organization uuid, p_count integer)
returns integer
language plpgsql as $$
begin
  return count_usage_many(p_organization, null, p_count);
end
$$;
