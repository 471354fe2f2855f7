-- A revision per organization that moves whenever anything a Gateway key
-- check or a decision context reads changes (the organization's settings,
-- its agents, gateway keys, tools, MCP servers, policies and their versions,
-- the principal's identity, delegations, observe windows, and the members and
-- people a key's creator check reads). A Gateway process keeps the key rows
-- and contexts it has read with the revision they were read at
-- (core/src/decision/warm-admission.ts) and decides a call from them without
-- reading again: the decision's write holds only while the organization's
-- revision is still the one they were read at, so a change committed before
-- the write is never decided around (the call is then decided again from
-- what the database says). Time-bound facts (expiry, an observe window's
-- end) are judged by the clock at each call, not by the revision.
--
-- The value is taken from a sequence after the row's lock is held, so it
-- only grows in commit order and a value names one state. The triggers are
-- deferred to the commit: the organization's revision row is the last lock a
-- changing transaction takes, so two transactions changing the same
-- organization's rows in different orders cannot deadlock on it. No foreign
-- key: an organization's deletion cascades to its agents, whose triggers
-- still bump the (then orphan, harmless) row.

create sequence configuration_revision_seq;

create table configuration_revisions (
  organization_id uuid primary key,
  revision bigint not null
);

insert into configuration_revisions (organization_id, revision)
select id, nextval('configuration_revision_seq') from organizations;

create function bump_configuration_revision(p_organization uuid) returns void
language sql as $$
  insert into configuration_revisions as r (organization_id, revision)
  values (p_organization, nextval('configuration_revision_seq'))
  on conflict (organization_id) do update set revision = nextval('configuration_revision_seq')
$$;

-- Row trigger: TG_ARGV[0] names the row's organization column.
create function configuration_changed() returns trigger
language plpgsql as $$
declare
  old_org uuid;
  new_org uuid;
begin
  if tg_op <> 'INSERT' then old_org := (to_jsonb(old) ->> tg_argv[0])::uuid; end if;
  if tg_op <> 'DELETE' then new_org := (to_jsonb(new) ->> tg_argv[0])::uuid; end if;
  if old_org is not null then perform bump_configuration_revision(old_org); end if;
  if new_org is not null and new_org is distinct from old_org then perform bump_configuration_revision(new_org); end if;
  return null;
end $$;

create constraint trigger organizations_configuration after insert or update or delete on organizations
  deferrable initially deferred for each row execute function configuration_changed('id');
create constraint trigger agents_configuration after insert or update or delete on agents
  deferrable initially deferred for each row execute function configuration_changed('organization_id');
create constraint trigger tools_configuration after insert or update or delete on tools
  deferrable initially deferred for each row execute function configuration_changed('organization_id');
create constraint trigger mcp_servers_configuration after insert or update or delete on mcp_servers
  deferrable initially deferred for each row execute function configuration_changed('organization_id');
create constraint trigger policies_configuration after insert or update or delete on policies
  deferrable initially deferred for each row execute function configuration_changed('organization_id');
create constraint trigger policy_versions_configuration after insert or update or delete on policy_versions
  deferrable initially deferred for each row execute function configuration_changed('organization_id');
create constraint trigger identities_configuration after insert or update or delete on identities
  deferrable initially deferred for each row execute function configuration_changed('organization_id');
create constraint trigger delegations_configuration after insert or update or delete on delegations
  deferrable initially deferred for each row execute function configuration_changed('organization_id');
create constraint trigger observe_windows_configuration after insert or update or delete on observe_windows
  deferrable initially deferred for each row execute function configuration_changed('organization_id');
create constraint trigger memberships_configuration after insert or update or delete on memberships
  deferrable initially deferred for each row execute function configuration_changed('organization_id');
-- Every column but last_used_at, which the Gateway touches once a minute.
create constraint trigger api_keys_configuration after insert or delete on api_keys
  deferrable initially deferred for each row execute function configuration_changed('organization_id');
create constraint trigger api_keys_configuration_update
  after update of organization_id, kind, environment, prefix, secret_hmac, name, agent_id, scopes, created_by,
                  created_at, expires_at, revoked_at, revoked_reason on api_keys
  deferrable initially deferred for each row execute function configuration_changed('organization_id');

-- A person is in no organization's rows: their disabling or deletion moves
-- the revision of every organization they are a member of (a key they
-- created stops working, SPEC 5.4).
create function person_changed() returns trigger
language plpgsql as $$
begin
  perform bump_configuration_revision(m.organization_id) from memberships m where m.user_id = new.id;
  return null;
end $$;

create constraint trigger users_configuration after update of disabled_at, deleted_at on users
  deferrable initially deferred for each row execute function person_changed();
