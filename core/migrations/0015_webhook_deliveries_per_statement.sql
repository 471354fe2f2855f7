-- Webhook deliveries created once per statement instead of once per event row.
-- A decision inserts two or three events in one statement; the row trigger of
-- 0008 ran its plpgsql function for each. The statement trigger below reads
-- the statement's new events as a transition table and creates every delivery
-- with one insert, still at the end of the statement that inserted the events
-- and in its transaction: an event and its deliveries exist at the same moment
-- (SPEC 6.1), one per enabled endpoint subscribing to its type, or only the
-- named endpoint for an event addressed to one (a test delivery); disabled
-- endpoints get none (SPEC 6.4).
create function create_webhook_deliveries_for_events() returns trigger language plpgsql as $$
begin
  insert into webhook_deliveries (organization_id, endpoint_id, event_id, next_attempt_at)
    select e.organization_id, e.id, n.id, n.created_at
      from new_events n
      join webhook_endpoints e on e.organization_id = n.organization_id and e.enabled
     where (n.webhook_endpoint_id is not null and e.id = n.webhook_endpoint_id)
        or (n.webhook_endpoint_id is null and n.type = any (e.event_types));
  return null;
end;
$$;

drop trigger events_create_webhook_deliveries on events;
drop function create_webhook_deliveries();
create trigger events_create_webhook_deliveries after insert on events
  referencing new table as new_events
  for each statement execute function create_webhook_deliveries_for_events();
