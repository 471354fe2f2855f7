-- A tools/call without an idempotency key that is held for a person repeats
-- the open held action of the same agent with the same request fingerprint
-- (tool and arguments digest) instead of opening a second approval request
-- (core/src/decision/identical-held.ts, docs/gateway.md "Approvals without
-- _meta"). Looked up only when a call's verdict needs approval; the index
-- holds only open held actions recorded without a key, so it stays small.
-- `status` is already in other indexes of protected_actions, so its changes
-- were not HOT updates before either.
create index protected_actions_open_held_idx on protected_actions (agent_id, request_fingerprint)
  where idempotency_key is null and approval_request_id is not null
    and status in ('pending_approval', 'approved', 'executing');
