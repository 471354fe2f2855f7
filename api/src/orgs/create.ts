import { randomBytes } from "node:crypto";
import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import { isUniqueViolation } from "../http/shared.js";
import { addMember } from "../members/store.js";
import { setCurrentOrganization } from "../sessions/store.js";
import type { OrganizationRow } from "./organization-json.js";
import { insertOrganization } from "./store.js";

/** A slug from the name, with a random suffix so two organizations of one name do not collide. */
function slugFrom(name: string): string {
  const base =
    name
      .toLowerCase()
      .normalize("NFKD")
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40) || "org";
  return `${base}-${randomBytes(3).toString("hex")}`;
}

/**
 * Create an organization: its creator is its first owner and it becomes their session's current
 * organization; audited as `organization.created`. A slug already taken is 409 SLUG_TAKEN.
 */
export async function createOrganization(
  pool: Pool,
  q: { name: string; slug: string | undefined; userId: string; sessionId: string; actor: Actor },
): Promise<OrganizationRow> {
  return inTransaction(pool, async (db) => {
    let row: OrganizationRow;
    try {
      row = await insertOrganization(db, q.name, q.slug ?? slugFrom(q.name));
    } catch (err) {
      if (isUniqueViolation(err)) throw new ServiceError("SLUG_TAKEN", "another organization has this slug");
      throw err;
    }
    await addMember(db, row.id, q.userId, "owner");
    await setCurrentOrganization(db, q.sessionId, row.id);
    await audit(db, {
      organizationId: row.id,
      action: "organization.created",
      actor: q.actor,
      target: { type: "organization", id: row.id },
    });
    return row;
  });
}
