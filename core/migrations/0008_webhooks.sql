-- Webhooks (SPEC 2.10, 3.7, 6): endpoints, one delivery per endpoint and
-- event, and the log of every attempt. docs/webhooks.md describes the design.

create table webhook_endpoints (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  url text not null,
  description text not null default '',
  enabled boolean not null default true,
  event_types text[] not null,
  -- Signing secrets encrypted with COUNTERSIGN_CREDENTIAL_KEY (core/credentials):
  -- the worker needs the secret itself to sign, so it cannot be hashed.
  secret_encrypted bytea not null,
  -- Only one previous secret is kept; it signs too until previous_secret_until (24 h).
  previous_secret_encrypted bytea,
  previous_secret_until timestamptz,
  created_by uuid references users (id) on delete set null,
  -- Why the service disabled the endpoint (creator_removed, ...); null when enabled or disabled by a person.
  disabled_reason text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhook_endpoints_org_idx on webhook_endpoints (organization_id, created_at, id);
create index webhook_endpoints_creator_idx on webhook_endpoints (created_by) where enabled;

-- A `webhook.test` event is addressed to one endpoint. Events are never
-- deleted with an endpoint (SPEC 6.1), so the reference is only cleared.
alter table events add column webhook_endpoint_id uuid references webhook_endpoints (id) on delete set null;

create table webhook_deliveries (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  endpoint_id uuid not null references webhook_endpoints (id) on delete cascade,
  event_id uuid not null references events (id) on delete cascade,
  state text not null default 'pending' check (state in ('pending', 'delivered', 'failed')),
  -- Attempts made since the delivery was created or last redelivered (8 at most).
  round_attempts smallint not null default 0,
  next_attempt_at timestamptz not null default now(),
  -- A worker that claimed the delivery holds it until lease_until; a lease
  -- that expires (the process died mid-attempt) makes the delivery claimable again.
  lease_token uuid,
  lease_until timestamptz,
  created_at timestamptz not null default now(),
  delivered_at timestamptz,
  failed_at timestamptz,
  unique (endpoint_id, event_id)
);
create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where state = 'pending';
create index webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id, created_at desc, id desc);
create index webhook_deliveries_event_idx on webhook_deliveries (event_id);

create table webhook_attempts (
  id uuid primary key default gen_random_uuid(),
  delivery_id uuid not null references webhook_deliveries (id) on delete cascade,
  -- 1, 2, ... across redeliveries.
  number integer not null,
  started_at timestamptz not null,
  -- Null while the attempt is in flight; an attempt of a process that died keeps error 'interrupted'.
  finished_at timestamptz,
  duration_ms integer,
  status_code integer,
  error text,
  unique (delivery_id, number)
);

-- Deliveries are created by the database when an event is inserted, whoever
-- writes it (the Gateway's decision statement, the Cloud API), in the same
-- transaction: the event and its deliveries exist at the same moment (SPEC
-- 6.1). Disabled endpoints get none (SPEC 6.4).
create function create_webhook_deliveries() returns trigger language plpgsql as $$
begin
  if new.webhook_endpoint_id is not null then
    insert into webhook_deliveries (organization_id, endpoint_id, event_id, next_attempt_at)
      select e.organization_id, e.id, new.id, new.created_at
        from webhook_endpoints e
       where e.id = new.webhook_endpoint_id and e.organization_id = new.organization_id and e.enabled;
  else
    insert into webhook_deliveries (organization_id, endpoint_id, event_id, next_attempt_at)
      select e.organization_id, e.id, new.id, new.created_at
        from webhook_endpoints e
       where e.organization_id = new.organization_id and e.enabled and new.type = any (e.event_types);
  end if;
  return null;
end;
$$;

create trigger events_create_webhook_deliveries after insert on events
  for each row execute function create_webhook_deliveries();
