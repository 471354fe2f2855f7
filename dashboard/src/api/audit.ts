/** The organization's audit log (SPEC 2.9), a page at a time. */
import { auditPageSchema } from "@countersign/protocol/wire";
import { cloud } from "./cloud.js";
import { inOrg } from "./paths.js";

export const auditApi = {
  page: (orgId: string, filter: { action?: string; cursor?: string }) =>
    cloud.request("GET", inOrg(orgId, "/audit"), auditPageSchema, {
      query: { limit: 50, action: filter.action || undefined, cursor: filter.cursor || undefined },
    }),
};
