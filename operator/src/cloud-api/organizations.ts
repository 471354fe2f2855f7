// GET and PATCH /orgs/<org_id>, and its principal (SPEC 2.1, 4.4, 4.5).
import type { CloudApiClient } from "./client.js";

export interface Organization {
  id: string;
  name: string;
  slug: string;
  plan: string;
  role?: string;
  approval_ttl_seconds: number;
  agent_disclosure: "none" | "rule" | "conditions";
  observe_max_hours: number;
}

/** The members of PATCH /orgs/<org_id> an admin may send (owner-only ones are not offered). */
export interface OrganizationUpdate {
  name?: string;
  approval_ttl_seconds?: number;
  agent_disclosure?: "none" | "rule" | "conditions";
}

/** The organization principal as GET /orgs/<id>/principal shows it: public material only. */
export interface Principal {
  kid: string;
  status: string;
  valid: boolean;
}

export function organizations(client: CloudApiClient) {
  const path = (id: string) => `/orgs/${encodeURIComponent(id)}`;
  return {
    async get(id: string): Promise<Organization> {
      return (await client.get<{ organization: Organization }>(path(id))).organization;
    },
    async update(id: string, update: OrganizationUpdate): Promise<Organization> {
      return (await client.patch<{ organization: Organization }>(path(id), update)).organization;
    },
    async principal(id: string): Promise<Principal | null> {
      return (await client.get<{ principal: Principal | null }>(`${path(id)}/principal`)).principal;
    },
  };
}
