import type { Queryable } from "@countersign/core/store";
import type { Principal } from "../access/principal.js";
import { insertAuditEntry } from "./store.js";

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
  await insertAuditEntry(db, e);
}
