import { ServiceError } from "@countersign/protocol/errors";
import type { BodyOf, SignedObject } from "@countersign/protocol/evidence";
import type { Delegation } from "@countersign/protocol/wire";
import type { Queryable } from "@countersign/core/store";
import { isUniqueViolation } from "../http/shared.js";

/** A delegation as stored: the signed DELEGATION, what was read from it, and its revocation. */
export interface DelegationRow {
  id: string;
  agent_id: string;
  object_id: string;
  object: SignedObject<BodyOf<"DELEGATION">>;
  permissions: string[];
  expires_at: Date;
  created_at: Date;
  revoked_at: Date | null;
  revocation: SignedObject<BodyOf<"REVOCATION">> | null;
}
const COLUMNS =
  "id, agent_id, object_id, object, permissions, expires_at, created_at, revoked_at, revocation";

/** A delegation as the Cloud API answers it, with its state at `now`. */
export function delegationJson(d: DelegationRow, now = Date.now()): Delegation {
  return {
    id: d.id,
    agent_id: d.agent_id,
    object_id: d.object_id,
    permissions: d.permissions,
    expires_at: d.expires_at.toISOString(),
    state: d.revoked_at ? "revoked" : d.expires_at.getTime() <= now ? "expired" : "active",
    created_at: d.created_at.toISOString(),
    revoked_at: d.revoked_at?.toISOString() ?? null,
    object: d.object,
    revocation: d.revocation,
  };
}

/** A page of an agent's delegations, newest first, after the `[created_at, id]` cursor. */
export async function listDelegations(
  db: Queryable,
  orgId: string,
  agentId: string,
  q: { after?: [string, string]; limit: number },
): Promise<DelegationRow[]> {
  const { rows } = await db.query<DelegationRow>(
    `select ${COLUMNS} from delegations where agent_id = $1 and organization_id = $2
       and ($3::timestamptz is null or (created_at, id) < ($3::timestamptz, $4::uuid))
     order by created_at desc, id desc limit $5`,
    [agentId, orgId, q.after?.[0] ?? null, q.after?.[1] ?? null, q.limit],
  );
  return rows;
}

/** How many unrevoked, unexpired delegations an agent has at `now`. */
export async function countActiveDelegations(db: Queryable, agentId: string, now: Date): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    "select count(*)::int as n from delegations where agent_id = $1 and revoked_at is null and expires_at > $2",
    [agentId, now],
  );
  return rows[0]!.n;
}

/** Stores a verified DELEGATION; the same object twice is a CONFLICT. */
export async function insertDelegation(
  db: Queryable,
  orgId: string,
  agentId: string,
  d: SignedObject<BodyOf<"DELEGATION">>,
): Promise<DelegationRow> {
  try {
    const { rows } = await db.query<DelegationRow>(
      `insert into delegations (organization_id, agent_id, object_id, object, permissions, expires_at) values ($1, $2, $3, $4, $5, $6) returning ${COLUMNS}`,
      [orgId, agentId, d.id, JSON.stringify(d), d.body.payload.permissions, d.body.payload.expires_at],
    );
    return rows[0]!;
  } catch (err) {
    if (isUniqueViolation(err))
      throw new ServiceError("CONFLICT", "this delegation was already submitted", {
        reason: "ALREADY_SUBMITTED",
      });
    throw err;
  }
}

/** One delegation of the organization, locked for its revocation, or 404. */
export async function lockDelegation(db: Queryable, orgId: string, id: string): Promise<DelegationRow> {
  const { rows } = await db.query<DelegationRow>(
    `select ${COLUMNS} from delegations where id = $1 and organization_id = $2 for update`,
    [id, orgId],
  );
  if (!rows[0]) throw new ServiceError("NOT_FOUND", "delegation not found");
  return rows[0];
}

/** Records a verified REVOCATION on its delegation. */
export async function revokeDelegation(
  db: Queryable,
  id: string,
  rev: SignedObject<BodyOf<"REVOCATION">>,
  now: Date,
): Promise<DelegationRow> {
  const { rows } = await db.query<DelegationRow>(
    `update delegations set revoked_at = $2, revocation_object_id = $3, revocation = $4 where id = $1 returning ${COLUMNS}`,
    [id, now, rev.id, JSON.stringify(rev)],
  );
  return rows[0]!;
}
