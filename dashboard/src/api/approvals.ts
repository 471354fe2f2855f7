/** Approval requests (SPEC 2.6): the pending list, one request, a person's signed decision. */
import { queryOptions } from "@tanstack/react-query";
import {
  approvalAnswerSchema,
  approvalDecisionAnswerSchema,
  approvalListSchema,
} from "@countersign/protocol/wire";
import { cloud } from "./cloud.js";
import { inOrg, seg } from "./paths.js";

export const approvalKeys = {
  pending: (orgId: string) => ["approvals", orgId] as const,
  one: (approvalId: string) => ["approval", approvalId] as const,
};

export const approvalsApi = {
  pendingQuery: (orgId: string) =>
    queryOptions({
      queryKey: approvalKeys.pending(orgId),
      queryFn: () =>
        cloud.request("GET", inOrg(orgId, "/approvals"), approvalListSchema, {
          query: { status: "pending", limit: 100 },
        }),
    }),
  get: (orgId: string, approvalId: string) =>
    cloud.request("GET", inOrg(orgId, `/approvals/${seg(approvalId)}`), approvalAnswerSchema),
  query: (orgId: string, approvalId: string) =>
    queryOptions({
      queryKey: approvalKeys.one(approvalId),
      queryFn: () => approvalsApi.get(orgId, approvalId),
    }),
  /** An APPROVAL or REJECTION signed in this browser with the person's bound key. */
  decide: (orgId: string, approvalId: string, decision: Record<string, unknown>) =>
    cloud.request(
      "POST",
      inOrg(orgId, `/approvals/${seg(approvalId)}/decision`),
      approvalDecisionAnswerSchema,
      {
        body: { decision },
      },
    ),
};
