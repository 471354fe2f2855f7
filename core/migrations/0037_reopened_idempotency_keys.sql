-- SPEC 3.6 and 7.3: an action that a policy change, a rollback, an emergency stop or the end of its
-- observe window closed before it ran (denied POLICY_CHANGED or OBSERVE_ENDED, expired SUPERSEDED)
-- gives its idempotency key back: the identical call, same key included, gets a new decision. The
-- closed action keeps its key (kept forever, SPEC 8.7) but leaves the unique index, so the new
-- decision is recorded under the same key; at most one action per key is live. The predicate is
-- spelled the same way in core/src/actions/reopened-keys.ts, whose lookups the index serves.
drop index protected_actions_idempotency_key;
create unique index protected_actions_idempotency_key on protected_actions (agent_id, idempotency_key)
  where idempotency_key is not null
    and not (status in ('denied', 'expired') and coalesce(decision_code, '') in ('POLICY_CHANGED', 'OBSERVE_ENDED', 'SUPERSEDED'));
