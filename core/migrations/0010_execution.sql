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
