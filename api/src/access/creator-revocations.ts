import type { Queryable } from "@countersign/core/store";
import { audit, serviceActor } from "../audit/record.js";
import { disableWebhooksCreatedBy, revokeKeysCreatedBy } from "./store.js";
import type { Role } from "./types.js";

/** Reasons the service itself revokes keys (SPEC 5.4). */
export type CreatorRevocation = "creator_removed" | "creator_left" | "creator_lost_role" | "creator_deleted";

/**
 * Revoke, as the service, the live keys a person created in an organization
 * (or in every organization when `organizationId` is null), each audited as
 * `api_key.revoked` with the reason. Authentication already refuses such keys
 * (core/keys authenticateKey, 5.4.5-6); revoking makes it permanent and visible.
 */
export async function revokeCreatorKeys(
  db: Queryable,
  organizationId: string | null,
  userId: string,
  reason: CreatorRevocation,
  kinds: "all" | "management" = "all",
): Promise<number> {
  const rows = await revokeKeysCreatedBy(db, organizationId, userId, reason, kinds);
  for (const k of rows) {
    await audit(db, {
      organizationId: k.organization_id,
      action: "api_key.revoked",
      actor: serviceActor,
      target: { type: "api_key", id: k.id },
      details: { reason, kind: k.kind, creator_id: userId },
    });
  }
  return rows.length;
}

/**
 * Disable, as the service, the enabled webhook endpoints a person created in
 * an organization (or in every organization when `organizationId` is null),
 * each audited as `webhook.updated` with the reason (SPEC 6.4). Their pending
 * deliveries wait; a Writer can enable the endpoint again.
 */
export async function disableCreatorWebhooks(
  db: Queryable,
  organizationId: string | null,
  userId: string,
  reason: CreatorRevocation,
): Promise<number> {
  const rows = await disableWebhooksCreatedBy(db, organizationId, userId, reason);
  for (const w of rows) {
    await audit(db, {
      organizationId: w.organization_id,
      action: "webhook.updated",
      actor: serviceActor,
      target: { type: "webhook", id: w.id },
      details: { enabled: false, reason, creator_id: userId },
    });
  }
  return rows.length;
}

/**
 * Everything a person's departure takes from what they created: their keys
 * and their webhook endpoints. One call, inside the caller's transaction.
 */
export async function revokeCreatorAccess(
  db: Queryable,
  organizationId: string | null,
  userId: string,
  reason: CreatorRevocation,
): Promise<void> {
  await revokeCreatorKeys(db, organizationId, userId, reason);
  await disableCreatorWebhooks(db, organizationId, userId, reason);
}

/** Roles that cannot manage webhooks (SPEC 5.6): their endpoints are disabled on the change. */
export function losesWebhooks(role: Role): boolean {
  return role === "approver" || role === "viewer";
}

/** Which keys a role change takes away (SPEC 5.4): management keys below admin, all keys below developer. */
export function keysLostByRole(role: Role): "all" | "management" | null {
  if (role === "owner" || role === "admin") return null;
  if (role === "developer") return "management";
  return "all";
}
