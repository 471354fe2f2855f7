import type { Queryable } from "../store/queryable.js";

// Not a prepared statement: it runs only for calls whose verdict needs a person's approval.
const OPEN_HELD = `
  select id from protected_actions
   where agent_id = $1 and request_fingerprint = $2 and execution = $3
     and idempotency_key is null and approval_request_id is not null
     and status in ('pending_approval', 'approved', 'executing')
   order by created_at desc
   limit 1`;

/**
 * The open held action this call repeats, if any (docs/gateway.md, "Approvals
 * without _meta"): recorded without an idempotency key, for the same agent,
 * tool and arguments (the request fingerprint), in the same mode, and not yet
 * over (waiting for a person, approved, or running). A held call is not the
 * agent's to start twice: an agent that cannot set an idempotency key (an
 * LLM-driven client) resumes it by repeating the identical call, as SPEC 7.3
 * says of APPROVAL_PENDING. Once it is over, the identical call is a new
 * decision again (SPEC 3.2).
 */
export async function openIdenticalHeld(
  db: Queryable,
  agentId: string,
  requestFingerprint: string,
  execution: "gateway" | "caller",
): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(OPEN_HELD, [agentId, requestFingerprint, execution]);
  return rows[0]?.id ?? null;
}
