import type { Queryable } from "@countersign/core/store";
import type { Principal } from "../access/principal.js";

export interface Actor {
  type: "user" | "api_key" | "operator" | "service";
  id: string | null;
  label: string | null;
}

/** The audit actor of a request's principal. */
export function actorOf(p: Principal): Actor {
  switch (p.kind) {
    case "session":
      return { type: "user", id: p.userId, label: p.email };
    case "management_key":
      return { type: "api_key", id: p.key.id, label: null };
    case "operator":
      return { type: "operator", id: p.username, label: p.username };
    default:
      return { type: "service", id: null, label: null };
  }
}

export const serviceActor: Actor = { type: "service", id: null, label: null };

/**
 * Append one audit entry (SPEC 5.2 `api_key.created`, 8.7
 * `organization.retention_changed`, ...). Callers pass ids, names and reasons,
 * never a secret: keys are named by id, people by id and address.
 */
export async function audit(
  db: Queryable,
  e: {
    organizationId: string | null;
    action: string;
    actor: Actor;
    target?: { type: string; id: string };
    details?: Record<string, unknown>;
  },
): Promise<void> {
  await db.query(
    `insert into audit_log (organization_id, action, actor_type, actor_id, actor_label, target_type, target_id, details)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      e.organizationId,
      e.action,
      e.actor.type,
      e.actor.id,
      e.actor.label,
      e.target?.type ?? null,
      e.target?.id ?? null,
      e.details ?? {},
    ],
  );
}
