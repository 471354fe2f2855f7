/**
 * The vocabulary of the route table (SPEC 4.3, 4.4, 5.3, 5.6): who may call a
 * route and which management-key scope it needs.
 */
import { roles, scopes, type Role, type Scope } from "@countersign/protocol/wire";
export { roles, scopes, type Role, type Scope };

/** The role groups of SPEC 4.3. */
export const roleGroups = {
  members: ["owner", "admin", "approver", "developer", "viewer"],
  writers: ["owner", "admin", "developer"],
  approvers: ["owner", "admin", "approver"],
  admins: ["owner", "admin"],
  owner: ["owner"],
} as const satisfies Record<string, readonly Role[]>;
export type RoleGroup = keyof typeof roleGroups;

/**
 * Who may call a route:
 * - `anyone`: no credential needed (sign-up, links sent by e-mail);
 * - `signed-in`: a person's session (account routes act on that person; an
 *   operator is not a person and is refused 403 FORBIDDEN);
 * - `signed-in-or-key`: a session or a management key of any scope;
 * - a role group: a route under /orgs/<org_id>, for members of that organization
 *   with one of the group's roles (sessions and bound operators), or keys of
 *   that organization with the scope below.
 */
export type Who = "anyone" | "signed-in" | "signed-in-or-key" | RoleGroup;

/** The management-key scope a route needs; `any`: any management key; `no`: keys are refused with 403 FORBIDDEN. */
export type KeyRule = Scope | "any" | "no";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface RouteAccess {
  method: Method;
  /** Path relative to /api/v1, fastify style; parameter names do not matter for matching. */
  path: string;
  who: Who;
  key: KeyRule;
  /**
   * Routes a session may call before its address is verified (SPEC 5.5:
   * verification, e-mail change, sign-out, the session itself, password change).
   */
  unverifiedAllowed?: boolean;
  /**
   * The route's action needs a person: a key that passed the scope check is
   * then refused with this code (SPEC 4.4: tools/<id>/authorize, ADMIN_REQUIRED).
   */
  keyRefusedAfterScope?: "ADMIN_REQUIRED";
}
