-- Policies and rollout (issue 8; SPEC 2.4, 3.3-3.6, 4.5, 8.3, 8.4;
-- docs/policy-rollout.md): saved examples, how each version came to be,
-- every activation with what its gates found, saved simulations, and the
-- rollbacks whose open actions are being closed.

-- Saved examples belong to the policy, not to a version (SPEC 2.4): at most 200.
alter table policies add column examples jsonb not null default '[]';
alter table policies add column examples_updated_at timestamptz;

-- Where a version came from: written by a person ('document'), a template,
-- the require-approval copy of another version (SPEC 3.5), or a rollback's
-- exact copy of a superseded version (SPEC 3.6).
alter table policy_versions add column origin text not null default 'document'
  check (origin in ('document', 'template', 'require_approval_copy', 'rollback'));
alter table policy_versions add column source_version_id uuid references policy_versions (id);
alter table policy_versions add column created_by_label text;
alter table policy_versions add column superseded_at timestamptz;
create index policy_versions_org_idx on policy_versions (organization_id);
create index policy_versions_policy_status_idx on policy_versions (policy_id, status);

-- One row per activation or rollback: what the gates found, recorded with the
-- change (acknowledged failing examples, the impact, the language gate). The
-- activation note's text is never stored (SPEC 4.5), only that one was given.
create table policy_activations (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  policy_id uuid not null references policies (id) on delete cascade,
  version_id uuid not null references policy_versions (id),
  previous_version_id uuid references policy_versions (id),
  trigger text not null check (trigger in ('activate', 'rollback')),
  -- rollback: the superseded version restored (the new version is its copy)
  restored_version_id uuid references policy_versions (id),
  open_actions text check (open_actions in ('keep', 'supersede_pending', 'supersede_all')),
  note_given boolean not null default false,
  acknowledged_failing_examples boolean not null default false,
  failing_examples integer not null default 0,
  impact jsonb,
  language_gate jsonb,
  simulation_id uuid,
  actor_type text not null,
  actor_id text,
  actor_label text,
  created_at timestamptz not null default now()
);
create index policy_activations_policy_idx on policy_activations (policy_id, created_at desc);

-- Saved simulations (SPEC 2.4, 4.5): evidence for a saved version, kept 400
-- days; at most 100 per policy per 24 hours (SPEC 8.3).
create table policy_simulations (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  policy_id uuid not null references policies (id) on delete cascade,
  candidate_version_id uuid not null references policy_versions (id),
  -- {kind: active|recorded|none|version, version_id}
  baseline jsonb not null,
  -- window, scope, environment as requested
  parameters jsonb not null,
  report jsonb not null,
  created_by_type text not null,
  created_by_id text,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index policy_simulations_policy_idx on policy_simulations (policy_id, created_at desc);

-- A rollback that closes open actions (SPEC 3.6) or an emergency stop. The
-- change itself closes every covered action it sees in its transaction; a
-- decision that read the old version just before and committed just after is
-- closed by the api's supersede worker, which claims open rows with
-- FOR UPDATE SKIP LOCKED and completes a row once a pass finds nothing left
-- after the grace period.
create table policy_supersessions (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  policy_id uuid not null references policies (id) on delete cascade,
  -- the version in force after the change: actions decided under any other
  -- version of the policy are covered (null for an emergency stop: all are)
  version_id uuid references policy_versions (id),
  scope text not null check (scope in ('supersede_pending', 'supersede_all')),
  reason text not null check (reason in ('rollback', 'emergency', 'manual')),
  closed integer not null default 0,
  created_at timestamptz not null default now(),
  last_run_at timestamptz,
  completed_at timestamptz
);
create index policy_supersessions_open_idx on policy_supersessions (created_at) where completed_at is null;

-- Open actions of a policy's agents, found fast by the closer and the impact preview.
create index protected_actions_policy_open_idx on protected_actions (policy_id, status)
  where status in ('pending_approval', 'approved', 'authorized');
create index protected_actions_agent_created_idx on protected_actions (agent_id, created_at desc);
