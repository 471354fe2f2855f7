-- Billing through Stripe (docs/billing.md): the provider's customer of an organization, its
-- subscription as last reported by a verified event, the Checkout sessions started, and the ids
-- of the events already applied (a replayed push is a no-op). The plan in effect stays
-- organizations.plan; these rows say why it is what it is.

create table billing_customers (
  organization_id uuid primary key references organizations (id) on delete cascade,
  customer_id text not null unique,
  created_at timestamptz not null default now()
);

create table billing_subscriptions (
  organization_id uuid primary key references organizations (id) on delete cascade,
  subscription_id text not null unique,
  plan text not null check (plan in ('startup', 'growth', 'scale', 'enterprise')),
  -- the spec's four states put the organization on `plan`; incomplete (not paid yet) and ended do not
  status text not null check (status in ('active', 'trialing', 'past_due', 'scheduled_cancel', 'incomplete', 'ended')),
  current_period_end timestamptz,
  -- the provider's creation time of the latest event applied: an older event arriving late changes nothing
  event_created timestamptz not null,
  updated_at timestamptz not null default now()
);

create table billing_checkouts (
  session_id text primary key,
  organization_id uuid not null references organizations (id) on delete cascade,
  plan text not null check (plan in ('startup', 'growth', 'scale', 'enterprise')),
  expires_at timestamptz not null,
  -- completed or expired (the provider said so); open sessions make a new checkout CHECKOUT_IN_PROGRESS
  closed_at timestamptz,
  created_at timestamptz not null default now()
);
create index billing_checkouts_open on billing_checkouts (organization_id) where closed_at is null;

create table billing_events (
  event_id text primary key,
  type text not null,
  received_at timestamptz not null default now()
);
