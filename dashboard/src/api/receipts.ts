/** Receipts (SPEC 2.11): the list by outcome, one receipt, its bundle's exact bytes. */
import { queryOptions } from "@tanstack/react-query";
import { receiptAnswerSchema, receiptListSchema } from "@countersign/protocol/wire";
import { cloud } from "./cloud.js";
import { inOrg, seg } from "./paths.js";

export const receiptsApi = {
  listQuery: (orgId: string, outcome: string) =>
    queryOptions({
      queryKey: ["receipts", orgId, outcome],
      queryFn: () =>
        cloud.request("GET", inOrg(orgId, "/receipts"), receiptListSchema, {
          query: { limit: 50, outcome: outcome || undefined },
        }),
    }),
  /**
   * Every receipt one action was issued (an authorization pending then granted, a closure…), newest
   * first. `version` (the action's `updated_at`) in the key reads them again whenever it changes.
   */
  ofActionQuery: (orgId: string, actionId: string, version: string) =>
    queryOptions({
      queryKey: ["receipts", orgId, "action", actionId, version],
      queryFn: () =>
        cloud.request("GET", inOrg(orgId, "/receipts"), receiptListSchema, {
          query: { limit: 20, protected_action_id: actionId },
        }),
    }),
  get: (orgId: string, receiptId: string) =>
    cloud.request("GET", inOrg(orgId, `/receipts/${seg(receiptId)}`), receiptAnswerSchema),
  query: (orgId: string, receiptId: string) =>
    queryOptions({ queryKey: ["receipt", receiptId], queryFn: () => receiptsApi.get(orgId, receiptId) }),
  /** The bundle as stored, byte for byte: what a verifier checks offline. */
  bundle: (orgId: string, receiptId: string) =>
    cloud.download(inOrg(orgId, `/receipts/${seg(receiptId)}/bundle`)),
};
