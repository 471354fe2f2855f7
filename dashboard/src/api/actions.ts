/** Protected actions (SPEC 2.4): the list with its filters, one action, its cancellation. */
import { queryOptions } from "@tanstack/react-query";
import { actionAnswerSchema, actionListSchema, cancellationAnswerSchema } from "@countersign/protocol/wire";
import { cloud } from "./cloud.js";
import { inOrg, seg } from "./paths.js";

export const actionKeys = { one: (actionId: string) => ["action", actionId] as const };

export const actionsApi = {
  /** `filter`: status, tool, agent_id as the list's address carries them. */
  listQuery: (orgId: string, filter: Record<string, string | undefined>) =>
    queryOptions({
      queryKey: ["actions", orgId, filter],
      queryFn: () =>
        cloud.request("GET", inOrg(orgId, "/actions"), actionListSchema, { query: { limit: 50, ...filter } }),
    }),
  get: (orgId: string, actionId: string) =>
    cloud.request("GET", inOrg(orgId, `/actions/${seg(actionId)}`), actionAnswerSchema),
  query: (orgId: string, actionId: string) =>
    queryOptions({ queryKey: actionKeys.one(actionId), queryFn: () => actionsApi.get(orgId, actionId) }),
  /** A CANCELLATION signed in this browser by the organization principal. */
  cancel: (orgId: string, actionId: string, cancellation: Record<string, unknown>) =>
    cloud.request("POST", inOrg(orgId, `/actions/${seg(actionId)}/cancel`), cancellationAnswerSchema, {
      body: { cancellation },
    }),
};
