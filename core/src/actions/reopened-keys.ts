/**
 * Closures whose identical call gets a new decision (SPEC 3.6 "a closed action's identical call
 * gets a new decision", 7.3 POLICY_CHANGED, OBSERVE_ENDED, SUPERSEDED): such an action gives its
 * idempotency key back. Migration 0037 keeps it out of the unique index on (agent_id,
 * idempotency_key) with this very predicate, so a lookup of the live action under a key adds it
 * and the index serves the lookup.
 */
export const REOPENING_CODES = ["POLICY_CHANGED", "OBSERVE_ENDED", "SUPERSEDED"] as const;

/** SQL: the action `alias` still holds its idempotency key (it was not closed by one of the codes above). */
export const holdsIdempotencyKey = (alias: string): string =>
  `not (${alias}.status in ('denied', 'expired') and coalesce(${alias}.decision_code, '') in (${REOPENING_CODES.map((c) => `'${c}'`).join(", ")}))`;
