import type { FastifyRequest } from "fastify";
import { ServiceError } from "@countersign/core/errors";
import { isAdmin, organizationOf } from "../routes/shared.js";

/**
 * "Admins, signed in" (SPEC 4.4): switching an agent's policy, enabling or
 * authorizing a tool, changing what an enabled tool is bound to. A person with
 * the owner or admin role in a browser session; a management key or an
 * operator never, whatever its scopes or role (403 ADMIN_REQUIRED).
 */
export function isAdminSignedIn(request: FastifyRequest): boolean {
  return request.principal.kind === "session" && isAdmin(organizationOf(request).role);
}

export function requireAdminSignedIn(request: FastifyRequest, what: string): void {
  if (!isAdminSignedIn(request)) throw new ServiceError("ADMIN_REQUIRED", `${what} needs an owner or admin signed in`);
}
