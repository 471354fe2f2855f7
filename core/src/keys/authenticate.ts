import type { Queryable } from "../store/queryable.js";
import { statement } from "../store/statement.js";
import { parseKey, type KeyEnvironment, type ParsedKey } from "./format.js";
import { hashSecret, hmacMatches } from "./secret-hash.js";

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

export interface KeyRow {
  id: string;
  organization_id: string;
  kind: KeyKind;
  environment: KeyEnvironment;
  secret_hmac: Buffer;
  agent_id: string | null;
  scopes: string[];
  created_by: string | null;
  revoked: boolean;
  expired: boolean;
  agent_active: boolean | null;
  creator_role: string | null;
  creator_enabled: boolean | null;
}

// One round trip: the key with everything 5.4 checks, evaluated at the
// database's clock so every replica agrees on expiry.
export const KEY_COLUMNS = `
         k.id, k.organization_id, k.kind, k.environment, k.secret_hmac, k.agent_id, k.scopes, k.created_by,
         k.revoked_at is not null as revoked,
         (k.expires_at is not null and k.expires_at <= now()) as expired,
         (a.status = 'active') as agent_active,
         m.role as creator_role,
         (u.id is not null and u.disabled_at is null and u.deleted_at is null) as creator_enabled`;
export const KEY_FROM = `
         api_keys k
    left join agents a on a.id = k.agent_id
    left join memberships m on m.organization_id = k.organization_id and m.user_id = k.created_by
    left join users u on u.id = k.created_by`;
const LOOKUP = statement("key_lookup", `select ${KEY_COLUMNS} from ${KEY_FROM} where k.prefix = $1`);

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
  const { rows } = await db.query<KeyRow>(LOOKUP.with([parsed.prefix]));
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
