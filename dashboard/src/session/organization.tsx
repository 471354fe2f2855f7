import { useQuery } from "@tanstack/react-query";
import { organizationsApi } from "../api/organizations.js";
import { useParams } from "react-router";
import type { Organization } from "@countersign/protocol/wire";

export function useOrganizations() {
  return useQuery(organizationsApi.listQuery());
}

/** The organization of the current /orgs/:orgId/... page, with the person's role in it. */
export function useCurrentOrganization(): { orgId: string; org: Organization | undefined } {
  const { orgId = "" } = useParams();
  const orgs = useOrganizations();
  return { orgId, org: orgs.data?.items.find((o) => o.id === orgId) };
}

export const orgPath = (orgId: string, rest = "") => `/orgs/${orgId}${rest}`;
