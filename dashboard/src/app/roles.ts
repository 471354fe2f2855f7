import type { Role } from "../api/types.js";

/** What each role may do in the dashboard (SPEC 5.6); the Cloud API checks the same on every request. */
export const can = {
  decideApprovals: (r: Role) => r === "owner" || r === "admin" || r === "approver",
  manage: (r: Role) => r === "owner" || r === "admin" || r === "developer",
  administer: (r: Role) => r === "owner" || r === "admin",
  own: (r: Role) => r === "owner",
};
