import type { ApiKey } from "@countersign/protocol/wire";
import type { KeyRow } from "./store.js";

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The key record: never the secret, nor its hash. */
export function keyJson(k: KeyRow): ApiKey {
  return {
    id: k.id,
    name: k.name,
    kind: k.kind,
    environment: k.environment,
    prefix: k.prefix,
    agent_id: k.agent_id,
    scopes: k.scopes,
    state: k.revoked_at ? "revoked" : k.expired ? "expired" : "active",
    created_by: k.created_by,
    created_at: k.created_at.toISOString(),
    expires_at: iso(k.expires_at),
    revoked_at: iso(k.revoked_at),
    revoked_reason: k.revoked_reason,
    last_used_at: iso(k.last_used_at),
  };
}
