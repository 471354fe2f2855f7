-- Gateway-enforced execution (SPEC 1.2, 4.2): what the claim, the upstream
-- call and recovery need on a protected action.

-- The binding the decision was made against (SPEC 2.3): a different binding
-- at execution time is UPSTREAM_CHANGED.
alter table protected_actions add column binding_digest text;
-- Set when the action is claimed for execution: recovery closes an action
-- still executing after its deadline (the upstream call has 30 s) as failed /
-- INTERRUPTED, and a late finisher then finds it no longer executing.
alter table protected_actions add column execution_deadline timestamptz;
alter table protected_actions add column execution_object_id text;
alter table protected_actions add column result_object_id text;
-- The upstream result as received, returned to a repeat of the same key;
-- removed by retention (SPEC 8.7).
alter table protected_actions add column result jsonb;
create index protected_actions_executing_idx on protected_actions (execution_deadline) where status = 'executing';

-- Whether a rollback or emergency stop covers an open action (SPEC 3.6): it
-- was decided under a version older than the one the change put in force, or
-- before the stop. `pending_only` asks about approvals (both scopes cover
-- pending ones); otherwise about approved or allowed calls (supersede_all).
-- The approval route, the hand-out and the execution claim ask it under
-- their locks, so a covered action is refused even before the closer reaches it.
create function covered_by_supersession(p_policy uuid, p_version integer, p_decided_at timestamptz, p_pending_only boolean)
returns boolean
language sql stable as $$
  select exists (
    select 1 from policy_supersessions s left join policy_versions sv on sv.id = s.version_id
     where s.policy_id = p_policy
       and (p_pending_only or s.scope = 'supersede_all')
       and ((s.version_id is null and p_decided_at <= s.created_at) or sv.number > p_version))
$$;
