-- A batch (core/src/decision/record-batch.ts) counted each decision of a
-- limited plan with its own count_usage call: two sums over the
-- organization's shard rows, an advisory lock and an update of a shard row,
-- per decision, where an unlimited plan's decisions were counted once per
-- organization (0027). `make bench` put the limited plan at 0.80-0.85 of the
-- unlimited one.
--
-- count_usage_many counts p_count decisions of one organization at once and
-- answers how many it counted: far from the limit, all of them on
-- count_usage's far path (the unlocked read that chooses the path, the shared
-- lock, the re-read, CSRTY when the total turned out to be inside the margin);
-- within the margin, on the exact path under the exclusive lock, as many as
-- fit under the limit, which is what p_count calls of count_usage in a row
-- would count. usage_margin() already allows every transaction
-- usage_counts_per_transaction() far-path counts in flight, and one batch holds
-- at most that many decisions, so counting them after one check is what the
-- margin's argument assumes. A batch calls it once per organization, in the
-- order of the organizations, so its advisory locks are taken in the order
-- row-by-row counting took them. count_usage is now its one-decision case.
create or replace function count_usage_many(p_organization uuid, p_limit bigint, p_count integer)
returns integer
language plpgsql as $$
declare
  m date := date_trunc('month', now() at time zone 'utc')::date;
  gate bigint := hashtextextended(p_organization::text || m::text, 0);
  margin bigint;
  total bigint;
  fits integer;
begin
  if p_count > usage_counts_per_transaction() then
    raise exception 'a transaction counts at most % decisions on the far path', usage_counts_per_transaction();
  end if;
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
      fits := greatest(0, least(p_count::bigint, p_limit - total))::integer;
      if fits > 0 then
        insert into usage_counters as u (organization_id, month, shard, protected_actions) values (p_organization, m, 0, fits)
        on conflict (organization_id, month, shard) do update set protected_actions = u.protected_actions + excluded.protected_actions;
      end if;
      return fits;
    end if;
  end if;
  perform count_shard(p_organization, p_count);
  return p_count;
end
$$;

create or replace function count_usage(p_organization uuid, p_limit bigint)
returns boolean
language plpgsql as $$
begin
  return count_usage_many(p_organization, p_limit, 1) = 1;
end
$$;
