import type { Role } from "@countersign/protocol/wire";

/**
 * What each role may do in the dashboard (SPEC 5.6); the Cloud API checks the same on every request.
 * A signed-in person always has a role in their organizations; null (the wire's "no member") may nothing.
 */
export const can = {
  decideApprovals: (r: Role | null) => r === "owner" || r === "admin" || r === "approver",
  manage: (r: Role | null) => r === "owner" || r === "admin" || r === "developer",
  administer: (r: Role | null) => r === "owner" || r === "admin",
  own: (r: Role | null) => r === "owner",
};
