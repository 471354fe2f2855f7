import type { RouteAccess } from "../access/types.js";
import { roleGroups } from "../access/types.js";

/**
 * How a caller proves who it is, as OpenAPI security schemes (SPEC 4.3, 5.5):
 * - `session`: the dashboard's session cookie `svc_session`;
 * - `csrf`: the `X-Service-CSRF` header a session must add on unsafe methods
 *   (with the dashboard's `Origin`);
 * - `bearer`: `Authorization: Bearer <management key>` (or a bound operator's
 *   Kubernetes ServiceAccount token, which acts as a member of its organization).
 */
export const securitySchemes = {
  session: {
    type: "apiKey",
    in: "cookie",
    name: "svc_session",
    description: "The session cookie set by POST /auth/signin.",
  },
  csrf: {
    type: "apiKey",
    in: "header",
    name: "X-Service-CSRF",
    description:
      "The session's csrf token (session.csrf_token of the sign-in answer); required with the session cookie on POST, PUT, PATCH and DELETE, together with the dashboard's Origin header.",
  },
  bearer: {
    type: "http",
    scheme: "bearer",
    description:
      "A management key (`Authorization: Bearer <key>`). The requirement's list names the management-key scope the route needs (OpenAPI 3.1 lets schemes other than OAuth list roles there); an empty list: a key of any scope.",
  },
  operator: {
    type: "http",
    scheme: "bearer",
    description:
      "A bound operator's Kubernetes ServiceAccount token (`Authorization: Bearer <token>`; docs/access.md): it acts as a member of the organizations bound to it, with the binding's role.",
  },
} as const;

type Requirement = Record<string, string[]>;

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * The security requirements of one route of the route table: alternatives
 * (any one suffices). `anyone`: none at all. A session needs its csrf header on
 * unsafe methods; a management key is listed only where the table accepts keys
 * (with the scope it needs), and not where a key that passed the scope is
 * refused all the same (`keyRefusedAfterScope`); a bound operator wherever a
 * member's role or any credential is accepted.
 */
export function securityOf(access: RouteAccess): Requirement[] {
  if (access.who === "anyone") return [];
  const session: Requirement = UNSAFE.has(access.method) ? { session: [], csrf: [] } : { session: [] };
  if (access.who === "signed-in") return [session];
  const requirements = [session];
  if (access.key !== "no" && !access.keyRefusedAfterScope) {
    requirements.push({ bearer: access.key === "any" ? [] : [access.key] });
  }
  requirements.push({ operator: [] });
  return requirements;
}

/** The `x-countersign-access` extension: the route table's row, so the roles a caller needs are visible. */
export function accessExtension(access: RouteAccess) {
  const roles =
    access.who === "anyone" || access.who === "signed-in" || access.who === "signed-in-or-key"
      ? undefined
      : [...roleGroups[access.who]];
  return {
    who: access.who,
    ...(roles ? { roles } : {}),
    management_key: access.key === "no" ? "refused" : access.key === "any" ? "any scope" : access.key,
    ...(access.keyRefusedAfterScope ? { key_refused_after_scope: access.keyRefusedAfterScope } : {}),
    ...(access.unverifiedAllowed ? { unverified_email_allowed: true } : {}),
  };
}
