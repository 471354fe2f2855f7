import { useQuery } from "@tanstack/react-query";
import { useParams } from "react-router";
import { api } from "../api/client.js";
import type { Organization, Page } from "../api/types.js";

export function useOrganizations() {
  return useQuery({ queryKey: ["orgs"], queryFn: () => api.get<Page<Organization>>("/orgs") });
}

/** The organization of the current /orgs/:orgId/... page, with the person's role in it. */
export function useCurrentOrganization(): { orgId: string; org: Organization | undefined } {
  const { orgId = "" } = useParams();
  const orgs = useOrganizations();
  return { orgId, org: orgs.data?.items.find((o) => o.id === orgId) };
}

export const orgPath = (orgId: string, rest = "") => `/orgs/${orgId}${rest}`;
