/** Approval requests (SPEC 2.6): the pending list, one request, a person's signed decision. */
import { queryOptions } from "@tanstack/react-query";
import {
  approvalAnswerSchema,
  approvalDecisionAnswerSchema,
  approvalListSchema,
  type Approval,
} from "@countersign/protocol/wire";
import { cloud } from "./cloud.js";
import { inOrg, seg } from "./paths.js";

/**
 * How often the waiting queue (the approvals page and the navigation's count) is read again while
 * the page is visible: the Cloud API has no push channel to the browser, so a request held at the
 * Gateway shows within this time without a reload. TanStack Query pauses it in a hidden tab.
 */
export const QUEUE_REFRESH_MS = 4000;

/** Pending requests read per refresh; the count shows "100+" beyond it. */
export const QUEUE_PAGE = 100;

export const approvalKeys = {
  pending: (orgId: string) => ["approvals", orgId] as const,
  one: (approvalId: string) => ["approval", approvalId] as const,
};

/**
 * Whether the person holding `kids` (their active personal keys) can decide this pending request
 * now: one of their keys is among the request's approvers, someone still can (approvers_left), and
 * it has not lapsed.
 */
export function decidableBy(a: Approval, kids: ReadonlySet<string>, now = Date.now()): boolean {
  return (
    a.status === "pending" &&
    a.approvers_left !== 0 &&
    Date.parse(a.expires_at) > now &&
    a.approver_kids.some((k) => kids.has(k))
  );
}

export const approvalsApi = {
  /** The organization's pending requests, read again every QUEUE_REFRESH_MS while visible. */
  pendingQuery: (orgId: string) =>
    queryOptions({
      queryKey: approvalKeys.pending(orgId),
      queryFn: () =>
        cloud.request("GET", inOrg(orgId, "/approvals"), approvalListSchema, {
          query: { status: "pending", limit: QUEUE_PAGE },
        }),
      refetchInterval: QUEUE_REFRESH_MS,
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
