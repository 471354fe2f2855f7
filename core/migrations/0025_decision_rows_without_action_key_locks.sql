-- The decision's objects, receipt and approval request without foreign keys
-- to their protected action. Each key was checked by a trigger at the end of
-- the statement that wrote the row: a query per row that took a KEY SHARE
-- lock on the action (a WAL record and a dirtied page each), three per
-- decision and five per tools/call, although every such row is written in
-- the statement that writes or moves its action, from the action's own id.
-- Their ON DELETE CASCADE never ran: protected actions are never deleted
-- (retention deletes an ended action's objects itself and marks the action;
-- core/src/store/kept-rows.test.ts fails on production code that deletes
-- protected actions). The unique key of an approval request's action stays.
alter table signed_objects drop constraint signed_objects_protected_action_id_fkey;
alter table receipts drop constraint receipts_protected_action_id_fkey;
alter table approval_requests drop constraint approval_requests_protected_action_id_fkey;

