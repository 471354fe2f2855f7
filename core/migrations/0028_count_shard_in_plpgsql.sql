-- count_shard (0027) was a SQL-language function holding an INSERT. Such a
-- function is never inlined, and PostgreSQL 15 parses and plans its body
-- again at every call: measured, 0.11 ms of a decision's 0.3-0.4 ms of
-- PostgreSQL execution went to planning one upsert. In plpgsql the upsert's
-- plan is prepared once per connection and kept. Same statement, same
-- result; only the language changes (create or replace keeps the callers).
-- bump_configuration_revision (0026), the other SQL function that writes,
-- runs on configuration changes only, but follows the same rule
-- (core/src/store/functions.test.ts checks it for every function).
create or replace function count_shard(p_organization uuid, p_count integer)
returns integer
language plpgsql as $$
begin
  insert into usage_counters as u (organization_id, month, shard, protected_actions)
  values (p_organization, date_trunc('month', now() at time zone 'utc')::date, (1 + pg_backend_pid() % 32000)::smallint, p_count)
  on conflict (organization_id, month, shard) do update set protected_actions = u.protected_actions + excluded.protected_actions;
  return p_count;
end
$$;

create or replace function bump_configuration_revision(p_organization uuid) returns void
language plpgsql as $$
begin
  insert into configuration_revisions as r (organization_id, revision)
  values (p_organization, nextval('configuration_revision_seq'))
  on conflict (organization_id) do update set revision = nextval('configuration_revision_seq');
end
$$;
