-- Organizations, people and their membership: the tenancy every other table hangs off.

create table organizations (
  id uuid primary key default gen_random_uuid(),
  name text not null check (char_length(name) between 1 and 200),
  slug text not null unique,
  created_at timestamptz not null default now(),
  approval_ttl_seconds integer not null default 86400 check (approval_ttl_seconds between 60 and 2592000),
  observe_max_hours integer not null default 0 check (observe_max_hours between 0 and 168),
  observe_live_opt_in boolean not null default false,
  agent_disclosure text not null default 'rule' check (agent_disclosure in ('none', 'rule', 'conditions')),
  data_retention_days integer check (data_retention_days between 1 and 3650),
  -- null: the installation's default plan (see DESIGN "Plans in a self-hosted installation")
  plan text check (plan in ('developer', 'startup', 'growth', 'scale', 'enterprise'))
);

create table users (
  id uuid primary key default gen_random_uuid(),
  email text not null,
  email_verified_at timestamptz,
  password_hash text not null,
  name text,
  disabled_at timestamptz,
  deleted_at timestamptz,
  created_at timestamptz not null default now()
);
create unique index users_email_key on users (lower(email)) where deleted_at is null;

create table memberships (
  organization_id uuid not null references organizations (id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  role text not null check (role in ('owner', 'admin', 'approver', 'developer', 'viewer')),
  created_at timestamptz not null default now(),
  primary key (organization_id, user_id)
);
create index memberships_user_idx on memberships (user_id);
