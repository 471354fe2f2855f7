-- The decision's rows without foreign keys to the rows every decision of an
-- organization shares. A foreign-key check takes a KEY SHARE lock on the row
-- it points at: every concurrent decision locked the same organizations row
-- (once per table it wrote: six), the same agent, tool, key and delegation,
-- each lock a WAL record, and concurrent lockers of one row a new MultiXact.
-- Organizations, agents, tools, gateway keys, delegations and observe windows
-- are never deleted (they are disabled, revoked or ended, and the actions keep
-- pointing at them as history; core/src/store/kept-rows.test.ts fails on a
-- statement that deletes them), so these keys only ever cost: the Gateway
-- writes ids it has just read in the same decision. The keys from a decision's
-- rows to its protected action stay (retention deletes an action with its
-- objects, receipts and approval request by cascade), as do the keys to
-- webhook endpoints, which can be deleted.
alter table protected_actions
  drop constraint protected_actions_organization_id_fkey,
  drop constraint protected_actions_agent_id_fkey,
  drop constraint protected_actions_api_key_id_fkey,
  drop constraint protected_actions_tool_id_fkey,
  drop constraint protected_actions_delegation_id_fkey,
  drop constraint protected_actions_observe_window_id_fkey;
alter table approval_requests drop constraint approval_requests_organization_id_fkey;
alter table signed_objects drop constraint signed_objects_organization_id_fkey;
alter table receipts drop constraint receipts_organization_id_fkey;
alter table events drop constraint events_organization_id_fkey;
alter table usage_counters drop constraint usage_counters_organization_id_fkey;
alter table webhook_deliveries drop constraint webhook_deliveries_organization_id_fkey;
