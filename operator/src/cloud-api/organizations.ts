// GET and PATCH /orgs/<org_id>, and its principal.
import {
  organizationAnswerSchema,
  principalStateSchema,
  type Organization,
  type OrganizationSettings,
  type PrincipalIdentity,
} from "@countersign/protocol/wire";
import type { CloudApiClient } from "./client.js";

export type { Organization };
/** The members of PATCH /orgs/<org_id> an admin may send (owner-only ones are not offered). */
export type OrganizationUpdate = Pick<
  OrganizationSettings,
  "name" | "approval_ttl_seconds" | "agent_disclosure"
>;
/** The organization principal as GET /orgs/<id>/principal shows it: public material only. */
export type Principal = PrincipalIdentity;

export function organizations(client: CloudApiClient) {
  const path = (id: string) => `/orgs/${encodeURIComponent(id)}`;
  return {
    async get(id: string): Promise<Organization> {
      return (await client.get(path(id), organizationAnswerSchema)).organization;
    },
    async update(id: string, update: OrganizationUpdate): Promise<Organization> {
      return (await client.patch(path(id), organizationAnswerSchema, update)).organization;
    },
    async principal(id: string): Promise<Principal | null> {
      return (await client.get(`${path(id)}/principal`, principalStateSchema)).principal;
    },
  };
}
