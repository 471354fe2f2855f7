import type { Queryable } from "../store/queryable.js";
import { parseKey, type KeyEnvironment, type ParsedKey } from "./format.js";
import { hashSecret, hmacMatches } from "./secret-hash.js";
import { keyRowByPrefix, type KeyRow } from "./store.js";

export type KeyKind = "gateway" | "management";

/**
 * Why a key cannot act (SPEC 5.4). Callers answer every one of these the same
 * way (401, nothing said about which); the reason is for logs and metrics.
 */
export type KeyRefusal =
  "malformed" | "unknown" | "revoked" | "expired" | "wrong_kind" | "agent_disabled" | "creator_not_allowed";

export interface AuthenticatedKey {
  id: string;
  organizationId: string;
  kind: KeyKind;
  environment: KeyEnvironment;
  agentId: string | null;
  scopes: string[];
  createdBy: string | null;
}

export type KeyCheck = { ok: true; key: AuthenticatedKey } | { ok: false; reason: KeyRefusal };

/** Roles that may create each kind of key (SPEC 5.2); a creator who lost them loses the key (5.4.6). */
export const rolesCreatingKeys: Record<KeyKind, readonly string[]> = {
  gateway: ["owner", "admin", "developer"],
  management: ["owner", "admin"],
};

/**
 * Check an API key for a service: lookup by prefix, constant-time comparison
 * of the keyed HMAC (the same work for an unknown prefix), then every
 * condition of SPEC 5.4. A key created by the installation itself (no
 * creator: the demo seed, the operator's ServiceAccount) skips 5.4.5-6.
 */
export async function authenticateKey(
  db: Queryable,
  hashKey: Buffer,
  text: string,
  kind: KeyKind,
): Promise<KeyCheck> {
  const parsed = parseKey(text);
  if (!parsed) return { ok: false, reason: "malformed" };
  const { rows } = await keyRowByPrefix(db, parsed.prefix);
  return checkKeyRow(parsed, hashSecret(hashKey, parsed.secret), rows[0], kind);
}

/**
 * Every condition of SPEC 5.4 on a looked-up key row (undefined: unknown
 * prefix), given the HMAC of the presented secret; compared in constant time.
 */
export function checkKeyRow(
  parsed: ParsedKey,
  hmac: Buffer,
  row: KeyRow | undefined,
  kind: KeyKind,
): KeyCheck {
  if (!hmacMatches(hmac, row?.secret_hmac) || !row || row.environment !== parsed.environment) {
    return { ok: false, reason: "unknown" };
  }
  if (row.revoked) return { ok: false, reason: "revoked" };
  if (row.expired) return { ok: false, reason: "expired" };
  if (row.kind !== kind) return { ok: false, reason: "wrong_kind" };
  if (row.kind === "gateway" && !row.agent_active) return { ok: false, reason: "agent_disabled" };
  if (row.created_by !== null) {
    if (
      !row.creator_enabled ||
      !row.creator_role ||
      !rolesCreatingKeys[row.kind].includes(row.creator_role)
    ) {
      return { ok: false, reason: "creator_not_allowed" };
    }
  }
  return {
    ok: true,
    key: {
      id: row.id,
      organizationId: row.organization_id,
      kind: row.kind,
      environment: row.environment,
      agentId: row.agent_id,
      scopes: row.scopes,
      createdBy: row.created_by,
    },
  };
}
