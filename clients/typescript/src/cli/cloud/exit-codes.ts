/**
 * Exit statuses of `countersign` (documented in docs/clients.md):
 * 0 done (for `verify`: valid), 1 refused by the Cloud API (or `verify`:
 * invalid), 2 usage error or a local file that cannot be read or written,
 * 3 not signed in or credentials refused, 4 the Cloud API unreachable or
 * failing (network, 5xx).
 */
export const EXIT = { ok: 0, refused: 1, usage: 2, auth: 3, unavailable: 4 } as const;
