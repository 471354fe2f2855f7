-- People and access for the Cloud API (issue 6): sessions, e-mail links,
-- invitations, the audit log, rate-limit counters shared by every api process,
-- personal identity challenges and operator (Kubernetes ServiceAccount) bindings.
-- Secrets never stored in clear: sessions, e-mail links and invitations keep a
-- SHA-256 of their random token only.

-- A signed-in browser (SPEC 2.11, 5.5). The token is 32 random bytes held only
-- by the cookie; the csrf_token is derived from it, so nothing else is stored.
create table sessions (
  id uuid primary key default gen_random_uuid(),
  token_hash bytea not null unique,
  user_id uuid not null references users (id) on delete cascade,
  current_organization_id uuid references organizations (id) on delete set null,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  -- 7 days after sign-in at the latest; idle end (12 h) is last_seen_at + 12 h
  expires_at timestamptz not null
);
create index sessions_user_idx on sessions (user_id);

-- One-use links sent by e-mail: address verification, password reset and the
-- two links of an address change (approve at the new address, reject at the old).
create table email_tokens (
  token_hash bytea primary key,
  purpose text not null check (purpose in ('verify', 'reset', 'email_change_approve', 'email_change_reject')),
  user_id uuid not null references users (id) on delete cascade,
  -- the requested address of an e-mail change
  new_email text,
  -- the approve and reject links of one change share a change id
  change_id uuid,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);
create index email_tokens_user_idx on email_tokens (user_id, purpose) where used_at is null;

create table invitations (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  email text not null,
  role text not null check (role in ('owner', 'admin', 'approver', 'developer', 'viewer')),
  token_hash bytea not null unique,
  invited_by uuid references users (id) on delete set null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  accepted_at timestamptz,
  accepted_by uuid references users (id) on delete set null,
  revoked_at timestamptz
);
create unique index invitations_pending_email on invitations (organization_id, lower(email))
  where accepted_at is null and revoked_at is null;

-- Who did what to which thing, when. `details` never holds a secret.
create table audit_log (
  id bigserial primary key,
  organization_id uuid references organizations (id) on delete cascade,
  action text not null,
  actor_type text not null check (actor_type in ('user', 'api_key', 'operator', 'service')),
  actor_id text,
  actor_label text,
  target_type text,
  target_id text,
  details jsonb not null default '{}',
  created_at timestamptz not null default now()
);
create index audit_log_org_idx on audit_log (organization_id, id desc);

-- Counters for every Cloud API rate limit and e-mail budget (SPEC 8.1), in
-- the database so the limits hold across api processes. Each subject's window
-- starts at its first counted request and lasts the limit's period, so a burst
-- is judged the same wherever it falls on the clock.
create table rate_limit_counters (
  key text primary key,
  window_start timestamptz not null,
  count integer not null default 0
);
create index rate_limit_counters_window_idx on rate_limit_counters (window_start);

-- Count one request against several limits at once, or none: when any limit
-- is already reached nothing is counted (a refused request changes nothing)
-- and the seconds until the fullest window ends are returned; 0 when counted.
create function hit_rate_limits(p_keys text[], p_limits integer[], p_windows integer[])
returns integer
language plpgsql as $$
declare
  ts timestamptz := clock_timestamp();
  wait double precision := 0;
  r record;
begin
  insert into rate_limit_counters (key, window_start, count)
  select k, ts, 0 from unnest(p_keys) as u(k)
  on conflict do nothing;
  -- lock the rows in key order so concurrent requests never deadlock
  for r in
    select c.key, c.window_start, c.count, u.l, u.w
      from unnest(p_keys, p_limits, p_windows) as u(k, l, w)
      join rate_limit_counters c on c.key = u.k
     order by c.key
       for update of c
  loop
    if r.window_start + make_interval(secs => r.w) > ts and r.count >= r.l then
      wait := greatest(wait, extract(epoch from (r.window_start + make_interval(secs => r.w)) - ts));
    end if;
  end loop;
  if wait > 0 then
    return greatest(1, ceil(wait))::integer;
  end if;
  update rate_limit_counters c
     set window_start = case when c.window_start + make_interval(secs => u.w) <= ts then ts else c.window_start end,
         count = case when c.window_start + make_interval(secs => u.w) <= ts then 1 else c.count + 1 end
    from unnest(p_keys, p_windows) as u(k, w)
   where c.key = u.k;
  return 0;
end
$$;

-- A challenge a person signs with a new personal key to prove possession.
create table identity_challenges (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  challenge text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);

-- A Kubernetes ServiceAccount (as TokenReview names it) bound by an owner to
-- an organization with a role (DESIGN "Kubernetes").
create table operator_bindings (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  username text not null check (username like 'system:serviceaccount:%'),
  role text not null check (role in ('admin', 'approver', 'developer', 'viewer')),
  created_by uuid references users (id) on delete set null,
  created_at timestamptz not null default now(),
  unique (organization_id, username)
);
