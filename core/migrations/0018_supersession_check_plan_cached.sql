-- covered_by_supersession as plpgsql: as a SQL function PostgreSQL did not
-- inline it into the claim's lock statement and planned its query again on
-- every call (pg_stat_statements under `make profile`: 0.24 ms of planning
-- per tools/call); plpgsql keeps the plan for the connection. Same query,
-- same answer.
create or replace function covered_by_supersession(p_policy uuid, p_version integer, p_decided_at timestamptz, p_pending_only boolean)
returns boolean
language plpgsql stable as $$
begin
  return exists (
    select 1 from policy_supersessions s left join policy_versions sv on sv.id = s.version_id
     where s.policy_id = p_policy
       and (p_pending_only or s.scope = 'supersede_all')
       and ((s.version_id is null and p_decided_at <= s.created_at) or sv.number > p_version));
end
$$;
