/** Plan and billing (docs/billing.md): the subscription and the provider's checkout and portal. */
import { queryOptions } from "@tanstack/react-query";
import { billingRedirectSchema, billingSchema, type CheckoutRequest } from "@countersign/protocol/wire";
import { cloud } from "./cloud.js";
import { inOrg } from "./paths.js";

export const billingApi = {
  query: (orgId: string) =>
    queryOptions({
      queryKey: ["billing", orgId],
      queryFn: () => cloud.request("GET", inOrg(orgId, "/billing"), billingSchema),
    }),
  /** The provider's checkout page for a plan, where the browser goes next. */
  checkout: (orgId: string, body: CheckoutRequest) =>
    cloud.request("POST", inOrg(orgId, "/billing/checkout"), billingRedirectSchema, { body }),
  /** The provider's customer portal. */
  portal: (orgId: string) =>
    cloud.request("POST", inOrg(orgId, "/billing/portal"), billingRedirectSchema, { body: {} }),
};
