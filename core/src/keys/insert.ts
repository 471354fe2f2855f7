import type { Queryable } from "../store/queryable.js";
import type { KeyEnvironment } from "./format.js";
import { generateKey } from "./generate.js";
import { hashSecret } from "./secret-hash.js";
import type { KeyKind } from "./authenticate.js";

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
