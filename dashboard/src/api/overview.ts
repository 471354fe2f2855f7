/** The organization's overview and its usage against the plan (SPEC 4.4). */
import { queryOptions } from "@tanstack/react-query";
import { overviewSchema, usageSchema } from "@countersign/protocol/wire";
import { cloud } from "./cloud.js";
import { inOrg } from "./paths.js";

export const overviewApi = {
  query: (orgId: string, days: number) =>
    queryOptions({
      queryKey: ["overview", orgId, days],
      queryFn: () => cloud.request("GET", inOrg(orgId, "/overview"), overviewSchema, { query: { days } }),
    }),
  usageQuery: (orgId: string) =>
    queryOptions({
      queryKey: ["usage", orgId],
      queryFn: () => cloud.request("GET", inOrg(orgId, "/usage"), usageSchema),
    }),
};
