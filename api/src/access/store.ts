import type { Queryable } from "@countersign/core/store";
import type { Role } from "./types.js";

/** Last-used time of a management key, at most once a minute (SPEC 2.2). */
export async function touchKeyLastUsed(db: Queryable, keyId: string): Promise<void> {
  await db.query(
    "update api_keys set last_used_at = now() where id = $1 and (last_used_at is null or last_used_at < now() - interval '1 minute')",
    [keyId],
  );
}

export interface OrganizationAccessRow {
  name: string;
  plan: string | null;
  role: Role | null;
  operator_admin_changes: boolean | null;
}

/**
 * The organization in a request's path and the caller's standing in it: a member's role, or a bound
 * operator's role and whether the owner allowed it the "Admins, signed in" changes.
 */
export async function organizationAccessRow(
  db: Queryable,
  organizationId: string,
  memberUserId: string | null,
  operatorUsername: string | null,
): Promise<OrganizationAccessRow | undefined> {
  const { rows } = await db.query<OrganizationAccessRow>(
    `select o.name, o.plan,
            coalesce((select role from memberships m where m.organization_id = o.id and m.user_id = $2),
                     (select role from operator_bindings b where b.organization_id = o.id and b.username = $3)) as role,
            (select allow_admin_changes from operator_bindings b where b.organization_id = o.id and b.username = $3) as operator_admin_changes
       from organizations o where o.id = $1`,
    [organizationId, memberUserId, operatorUsername],
  );
  return rows[0];
}

/** Revoke the live keys a person created (in one organization, or all when null); the revoked rows. */
export async function revokeKeysCreatedBy(
  db: Queryable,
  organizationId: string | null,
  userId: string,
  reason: string,
  kinds: "all" | "management",
): Promise<{ id: string; organization_id: string; kind: string }[]> {
  const { rows } = await db.query<{ id: string; organization_id: string; kind: string }>(
    `update api_keys set revoked_at = now(), revoked_reason = $3
      where created_by = $2 and revoked_at is null
        and ($1::uuid is null or organization_id = $1)
        and ($4 = 'all' or kind = 'management')
      returning id, organization_id, kind`,
    [organizationId, userId, reason, kinds],
  );
  return rows;
}

/** Disable the enabled webhook endpoints a person created (one organization, or all when null). */
export async function disableWebhooksCreatedBy(
  db: Queryable,
  organizationId: string | null,
  userId: string,
  reason: string,
): Promise<{ id: string; organization_id: string }[]> {
  const { rows } = await db.query<{ id: string; organization_id: string }>(
    `update webhook_endpoints set enabled = false, disabled_reason = $3, updated_at = now()
      where created_by = $2 and enabled and ($1::uuid is null or organization_id = $1)
      returning id, organization_id`,
    [organizationId, userId, reason],
  );
  return rows;
}
