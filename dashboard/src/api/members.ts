/** Members and invitations of an organization (SPEC 2.1, 4.2). */
import { queryOptions } from "@tanstack/react-query";
import {
  invitationAcceptedSchema,
  invitationAnswerSchema,
  invitationListSchema,
  memberAnswerSchema,
  memberListSchema,
  noContentSchema,
  type Role,
} from "@countersign/protocol/wire";
import { cloud } from "./cloud.js";
import { inOrg, seg } from "./paths.js";

export const memberKeys = {
  members: (orgId: string) => ["members", orgId] as const,
  invitations: (orgId: string) => ["invitations", orgId] as const,
};

export const membersApi = {
  listQuery: (orgId: string) =>
    queryOptions({
      queryKey: memberKeys.members(orgId),
      queryFn: () => cloud.request("GET", inOrg(orgId, "/members"), memberListSchema),
    }),
  setRole: (orgId: string, userId: string, role: Role) =>
    cloud.request("PATCH", inOrg(orgId, `/members/${seg(userId)}`), memberAnswerSchema, { body: { role } }),
};

export const invitationsApi = {
  listQuery: (orgId: string) =>
    queryOptions({
      queryKey: memberKeys.invitations(orgId),
      queryFn: () => cloud.request("GET", inOrg(orgId, "/invitations"), invitationListSchema),
    }),
  invite: (orgId: string, email: string, role: Role) =>
    cloud.request("POST", inOrg(orgId, "/invitations"), invitationAnswerSchema, { body: { email, role } }),
  withdraw: (orgId: string, invitationId: string) =>
    cloud.request("DELETE", inOrg(orgId, `/invitations/${seg(invitationId)}`), noContentSchema),
  accept: (token: string) =>
    cloud.request("POST", "/invitations/accept", invitationAcceptedSchema, { body: { token } }),
};
