import type { QueryResult } from "pg";
import type { Queryable } from "../store/queryable.js";
import { statement } from "../store/statement.js";
import type { KeyKind } from "./authenticate.js";
import type { KeyEnvironment } from "./format.js";
import { generateKey } from "./generate.js";
import { hashSecret } from "./secret-hash.js";

/** A key as the lookup reads it, with what SPEC 5.4 checks (authenticate.ts `checkKeyRow`). */
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

/** The key of a prefix (none: unknown), one round trip. */
export function keyRowByPrefix(db: Queryable, prefix: string): Promise<QueryResult<KeyRow>> {
  return db.query<KeyRow>(LOOKUP.with([prefix]));
}

export interface NewApiKey {
  organizationId: string;
  kind: KeyKind;
  environment: KeyEnvironment;
  name: string;
  agentId?: string;
  scopes?: string[];
  createdBy?: string | null;
  expiresAt?: Date;
}

/**
 * Store a new key (prefix and keyed hash only) and return the full key string,
 * which exists nowhere else from now on. Who may create it and plan limits are
 * the caller's checks (Cloud API); this is the one write path.
 */
export async function insertApiKey(
  db: Queryable,
  hashKey: Buffer,
  k: NewApiKey,
): Promise<{ id: string; prefix: string; key: string }> {
  const generated = generateKey(k.environment);
  const { rows } = await db.query<{ id: string }>(
    `insert into api_keys (organization_id, kind, environment, prefix, secret_hmac, name, agent_id, scopes, created_by, expires_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning id`,
    [
      k.organizationId,
      k.kind,
      k.environment,
      generated.prefix,
      hashSecret(hashKey, generated.secret),
      k.name,
      k.agentId ?? null,
      k.scopes ?? [],
      k.createdBy ?? null,
      k.expiresAt ?? null,
    ],
  );
  return { id: rows[0]!.id, prefix: generated.prefix, key: generated.key };
}
