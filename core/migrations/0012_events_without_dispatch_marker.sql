-- Events never needed a dispatch marker: the trigger of 0008 creates an event's deliveries in the
-- transaction that inserts it, so no worker scans for undispatched events. The column was never
-- set, and its partial index (every event matched it) cost an index write on each decision that
-- records an event. Dropping the column drops events_undispatched_idx with it.
alter table events drop column dispatched_at;
