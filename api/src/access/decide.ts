import { ServiceError } from "@countersign/protocol/errors";
import type { Principal } from "./principal.js";
import { roleGroups, type Role, type RouteAccess } from "./types.js";

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** What decide() needs to know about the organization in the path. */
export interface OrganizationCheck {
  exists: boolean;
  /** The caller's role now (re-read on every request); null when not a member. */
  role: Role | null;
}

const forbidden = (message: string, details?: Record<string, unknown>) =>
  new ServiceError("FORBIDDEN", message, details);
const unauthenticated = () => new ServiceError("UNAUTHENTICATED", "sign in, or send a valid management key");

/**
 * Credential checks that need no organization: key kinds against the route's
 * key rule (SPEC 5.1, 4.3), CSRF and Origin (5.5), the signed-in routes.
 * Throws the refusal; returns when the organization check (if any) is next.
 */
export function checkCredential(
  access: RouteAccess,
  p: Principal,
  request: { method: string; origin: string | undefined; csrfHeader: string | undefined },
  dashboardOrigin: string,
): void {
  if (p.kind === "gateway_key") {
    throw access.key === "no" ? forbidden("gateway keys are for the Gateway only") : unauthenticated();
  }
  if (p.kind === "management_key" && access.key === "no")
    throw forbidden("this route takes no API keys; sign in");
  if (p.kind === "invalid_credential") throw unauthenticated();

  const unsafe = UNSAFE.has(request.method);
  if (access.who === "anyone") {
    // Unauthenticated POST routes refuse a foreign Origin; no Origin passes (SPEC 5.5).
    if (unsafe && request.origin !== undefined && request.origin !== dashboardOrigin) {
      throw new ServiceError("CSRF_FAILED", "the request's Origin is not the dashboard's");
    }
    return;
  }
  if (p.kind === "session" && unsafe) {
    if (
      request.origin !== dashboardOrigin ||
      request.csrfHeader === undefined ||
      request.csrfHeader !== p.csrfToken
    ) {
      throw new ServiceError(
        "CSRF_FAILED",
        "unsafe requests with a session need the dashboard's Origin and X-Service-CSRF",
      );
    }
  }
  if (p.kind === "anonymous") throw unauthenticated();
  if (p.kind === "session" && !p.emailVerified && !access.unverifiedAllowed) {
    throw new ServiceError("EMAIL_NOT_VERIFIED", "verify your e-mail address first");
  }
  if (access.who === "signed-in" && p.kind !== "session")
    throw forbidden("only a signed-in person may do this");
  if (
    access.who === "signed-in-or-key" &&
    p.kind !== "session" &&
    p.kind !== "management_key" &&
    p.kind !== "operator"
  ) {
    throw unauthenticated();
  }
}

/** The organization check of a route under /orgs/<org_id> (SPEC 4.3 route scoping, 5.3 scopes). */
export function checkOrganization(
  access: RouteAccess,
  p: Principal,
  org: OrganizationCheck,
  orgId: string,
): void {
  const notFound = new ServiceError("NOT_FOUND", "organization not found");
  if (!org.exists) throw notFound;
  if (p.kind === "management_key") {
    if (p.key.organizationId !== orgId) throw notFound;
    if (access.key !== "any" && access.key !== "no" && !p.key.scopes.includes(access.key)) {
      throw forbidden(`this key lacks the scope ${access.key}`, { required_scope: access.key });
    }
    if (access.keyRefusedAfterScope)
      throw new ServiceError(access.keyRefusedAfterScope, "an owner or admin must do this, signed in");
    return;
  }
  if (org.role === null) throw notFound;
  const group = access.who as keyof typeof roleGroups;
  if (!(roleGroups[group] as readonly Role[]).includes(org.role)) {
    throw forbidden(`this needs one of the roles ${roleGroups[group].join(", ")}`, {
      permission: group,
      role: org.role,
    });
  }
}
