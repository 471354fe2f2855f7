-- Everything a decision reads or writes: identities, keys, agents, integrations
-- and tools, policies and versions, delegations, protected actions, approval
-- requests, signed objects, receipts, the event outbox, usage and rate limits.
-- Later migrations add what the Cloud API issues need around these.

-- Signers (docs/evidence.md): the Gateway identity (installation-wide, no
-- organization), an organization's principal, people's personal identities,
-- MCP server identities. `document` is the signed identity document.
create table identities (
  kid text primary key,
  kind text not null check (kind in ('gateway', 'principal', 'personal', 'mcp_server')),
  organization_id uuid references organizations (id) on delete cascade,
  user_id uuid references users (id) on delete cascade,
  public_key text not null,
  document jsonb not null,
  status text not null default 'active' check (status in ('active', 'replaced', 'revoked', 'equivocated')),
  created_at timestamptz not null default now(),
  retired_at timestamptz
);
create index identities_org_kind_idx on identities (organization_id, kind) where status = 'active';
create index identities_user_idx on identities (user_id, created_at desc) where status = 'active';

create table agents (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  name text not null check (char_length(name) between 1 and 200),
  status text not null default 'active' check (status in ('active', 'disabled')),
  policy_id uuid,
  created_at timestamptz not null default now(),
  unique (organization_id, name)
);

-- Only the prefix and a keyed HMAC-SHA256 of the secret are stored (SPEC 2.2).
create table api_keys (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  kind text not null check (kind in ('gateway', 'management')),
  environment text not null check (environment in ('live', 'test')),
  prefix text not null unique check (prefix ~ '^[a-z0-9]{12}$'),
  secret_hmac bytea not null,
  name text not null check (char_length(name) between 1 and 200),
  agent_id uuid references agents (id) on delete cascade,
  scopes text[] not null default '{}',
  created_by uuid references users (id) on delete set null,
  created_at timestamptz not null default now(),
  expires_at timestamptz,
  revoked_at timestamptz,
  revoked_reason text,
  last_used_at timestamptz,
  check ((kind = 'gateway') = (agent_id is not null))
);
create index api_keys_agent_idx on api_keys (agent_id);

-- Per-key token bucket shared by every Gateway replica (SPEC 8.2).
create table rate_limit_buckets (
  api_key_id uuid primary key references api_keys (id) on delete cascade,
  tokens double precision not null,
  refilled_at timestamptz not null
);

-- An MCP server, or a decision-only integration (kind 'decision_only': no URL, credential or KID).
create table mcp_servers (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  name text not null check (char_length(name) between 1 and 200),
  kind text not null check (kind in ('mcp', 'decision_only')),
  url text,
  credential_encrypted bytea,
  credential_version integer not null default 0,
  server_kid text,
  status text not null default 'active',
  created_at timestamptz not null default now(),
  unique (organization_id, name),
  check (kind = 'mcp' or (url is null and credential_encrypted is null and server_kid is null))
);

-- `binding` is what the tool is bound to now (credential version, input schema
-- digest, amount mapping); `authorized_binding` what an owner or admin authorized.
create table tools (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  mcp_server_id uuid not null references mcp_servers (id) on delete cascade,
  exposed_name text not null check (char_length(exposed_name) between 1 and 128),
  upstream_name text not null,
  action text not null,
  description text,
  input_schema jsonb,
  amount_mapping jsonb,
  enabled boolean not null default false,
  binding jsonb not null,
  authorized_binding jsonb,
  created_at timestamptz not null default now(),
  unique (organization_id, exposed_name)
);

create table policies (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  name text not null check (char_length(name) between 1 and 200),
  agent_disclosure text not null default 'inherit' check (agent_disclosure in ('inherit', 'none', 'rule', 'conditions')),
  active_version_id uuid,
  shadow_version_id uuid,
  emergency_stopped_at timestamptz,
  created_at timestamptz not null default now(),
  unique (organization_id, name)
);
alter table agents add foreign key (policy_id) references policies (id) on delete set null;

create table policy_versions (
  id uuid primary key default gen_random_uuid(),
  policy_id uuid not null references policies (id) on delete cascade,
  organization_id uuid not null references organizations (id) on delete cascade,
  number integer not null,
  document jsonb not null,
  document_size integer not null,
  digest text not null,
  language_revision smallint not null check (language_revision in (1, 2)),
  status text not null default 'draft' check (status in ('draft', 'active', 'superseded')),
  note text,
  created_at timestamptz not null default now(),
  activated_at timestamptz,
  unique (policy_id, number)
);
alter table policies add foreign key (active_version_id) references policy_versions (id);
alter table policies add foreign key (shadow_version_id) references policy_versions (id);

-- A DELEGATION signed by the principal, verified on submission; `permissions`
-- are the actions it grants (glob patterns, docs/evidence.md).
create table delegations (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  agent_id uuid not null references agents (id) on delete cascade,
  object_id text not null unique,
  object jsonb not null,
  permissions text[] not null,
  expires_at timestamptz not null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz,
  revocation_object_id text,
  revocation jsonb
);
create index delegations_agent_idx on delegations (agent_id) where revoked_at is null;

create table protected_actions (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  agent_id uuid not null references agents (id) on delete cascade,
  api_key_id uuid references api_keys (id) on delete set null,
  tool_id uuid references tools (id) on delete set null,
  tool_name text not null,
  action text not null,
  execution text not null check (execution in ('gateway', 'caller')),
  environment text not null check (environment in ('live', 'test')),
  status text not null check (status in (
    'denied', 'pending_approval', 'approved', 'authorized', 'executing', 'succeeded', 'failed',
    'rejected', 'cancelled', 'expired')),
  error_code text,
  arguments_digest text not null,
  request_fingerprint text not null,
  idempotency_key text,
  amount numeric,
  currency text,
  -- the policy decision of SPEC 2.6
  policy_id uuid,
  policy_version_id uuid,
  policy_version integer,
  policy_digest text,
  rule_id text,
  policy_effect text check (policy_effect in ('allow', 'require_approval', 'deny')),
  enforcement text check (enforcement in ('enforce', 'observe')),
  decision_code text,
  -- the refusal the agent got, stored so a repeat gets exactly the same (SPEC 2.9)
  agent_explanation jsonb,
  explanation jsonb,
  delegation_id uuid references delegations (id) on delete set null,
  approval_request_id uuid,
  task_object_id text,
  proposal_object_id text,
  receipt_id uuid,
  expires_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index protected_actions_idempotency_key on protected_actions (agent_id, idempotency_key) where idempotency_key is not null;
create index protected_actions_org_created_idx on protected_actions (organization_id, created_at desc);

create table approval_requests (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  protected_action_id uuid not null unique references protected_actions (id) on delete cascade,
  status text not null default 'pending' check (status in ('pending', 'approved', 'rejected', 'expired', 'superseded', 'cancelled')),
  roles text[] not null,
  approver_count integer not null default 1,
  approver_kids text[] not null,
  expires_at timestamptz not null,
  decided_at timestamptz,
  decided_by_kid text,
  decision_object_id text,
  created_at timestamptz not null default now()
);
create index approval_requests_org_idx on approval_requests (organization_id, created_at desc);

-- Every signed object (ko_...) of every thread, as signed.
create table signed_objects (
  object_id text primary key,
  organization_id uuid references organizations (id) on delete cascade,
  protected_action_id uuid references protected_actions (id) on delete cascade,
  type text not null,
  object jsonb not null,
  created_at timestamptz not null default now()
);
create index signed_objects_action_idx on signed_objects (protected_action_id);

create table receipts (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  protected_action_id uuid not null references protected_actions (id) on delete cascade,
  kind text not null check (kind in ('execution', 'authorization', 'closure')),
  receipt_object_id text not null unique,
  thread_id text not null,
  head_object_id text not null,
  workflow text not null,
  outcome text not null check (outcome in ('succeeded', 'failed', 'final', 'pending', 'granted')),
  issuer_kid text not null,
  bundle bytea,
  bundle_sha256 text not null,
  bundle_size integer not null,
  verified_at_issuance boolean,
  created_at timestamptz not null default now(),
  evidence_deleted_at timestamptz
);
create index receipts_org_created_idx on receipts (organization_id, created_at desc);
create index receipts_action_idx on receipts (protected_action_id);

-- The outbox: events written in the same transaction as their change; the
-- webhook worker turns them into deliveries.
create table events (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  type text not null,
  data jsonb not null,
  created_at timestamptz not null default now(),
  dispatched_at timestamptz
);
create index events_undispatched_idx on events (created_at) where dispatched_at is null;

-- Protected actions per organization and UTC month. Limited plans count in
-- shard 0 so the limit check is exact; unlimited plans spread over shards so
-- concurrent decisions of one organization do not queue on one row.
create table usage_counters (
  organization_id uuid not null references organizations (id) on delete cascade,
  month date not null,
  shard smallint not null default 0,
  protected_actions bigint not null default 0,
  primary key (organization_id, month, shard)
);

-- Gateway replicas report here (language gate of SPEC 3.4, operations).
create table gateway_instances (
  instance_id text primary key,
  version text not null,
  language_revisions smallint[] not null,
  started_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now()
);
