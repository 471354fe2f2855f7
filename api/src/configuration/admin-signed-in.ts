import type { FastifyRequest } from "fastify";
import { ServiceError } from "@countersign/protocol/errors";
import { isAdmin, organizationOf } from "../http/shared.js";

/**
 * "Admins, signed in" (SPEC 4.4): switching an agent's policy, enabling or
 * authorizing a tool, changing what an enabled tool is bound to. A person with
 * the owner or admin role in a browser session; a management key never,
 * whatever its scopes (403 ADMIN_REQUIRED). An operator only when an owner
 * bound it as admin with `allow_admin_changes` (docs/access.md): GitOps
 * teams review these changes in Git, and the owner chose to trust that review.
 */
export function isAdminSignedIn(request: FastifyRequest): boolean {
  const o = organizationOf(request);
  if (request.principal.kind === "session") return isAdmin(o.role);
  return request.principal.kind === "operator" && o.role === "admin" && o.operatorAdminChanges;
}

export function requireAdminSignedIn(request: FastifyRequest, what: string): void {
  if (!isAdminSignedIn(request))
    throw new ServiceError("ADMIN_REQUIRED", `${what} needs an owner or admin signed in`);
}
