-- Observe windows (SPEC 3.9) and what a decision records about the Gateway
-- that made it (the language gate of SPEC 3.4). The decision pipeline reads
-- both; the Cloud API's observe routes and activation gates write and read them.

-- One open window per agent: open means ended_at is null and ends_at is in
-- the future. A window that passed ends_at without ended_at set is closed by
-- the api's closer, which fills ended_at and end_reason 'expired'.
create table observe_windows (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  agent_id uuid not null references agents (id) on delete cascade,
  -- the agent's policy when the window started (reports and the rollout stage)
  policy_id uuid references policies (id) on delete set null,
  started_by uuid references users (id) on delete set null,
  started_at timestamptz not null default now(),
  hours integer not null check (hours between 1 and 168),
  ends_at timestamptz not null,
  -- live opt-in (SPEC 2.1): false means only test-environment keys are relaxed
  live boolean not null default false,
  reason text,
  ended_at timestamptz,
  ended_by uuid references users (id) on delete set null,
  -- 'ended' (end call), 'expired', 'settings_changed', 'policy_emergency' ...
  end_reason text
);
create unique index observe_windows_one_open_per_agent on observe_windows (agent_id) where ended_at is null;
create index observe_windows_org_idx on observe_windows (organization_id, started_at desc);

-- The policy-language revision the deciding Gateway supports, and which
-- replica decided: "an older Gateway decided this organization's calls in
-- the last 30 minutes" closes the language gate.
alter table protected_actions add column gateway_instance_id text;
alter table protected_actions add column gateway_language_revision smallint;
-- A decision relaxed by an observe window records which one.
alter table protected_actions add column observe_window_id uuid references observe_windows (id) on delete set null;
alter table protected_actions add column relaxed boolean not null default false;
-- The detail sentence of a recorded refusal, so a repeat answers exactly the same.
alter table protected_actions add column decision_detail text;
