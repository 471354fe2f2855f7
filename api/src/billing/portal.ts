/**
 * POST .../billing/portal (SPEC 4.4, 7.2): a Stripe customer portal session, where the owner
 * changes plan, updates payment or cancels. NO_BILLING_CUSTOMER until a checkout made the
 * organization a customer. What the owner does there comes back as verified events (events.ts).
 */
import type { Queryable } from "@countersign/core/store";
import { ServiceError } from "@countersign/protocol/errors";
import type { BillingRedirect } from "@countersign/protocol/wire";
import type { BillingProvider } from "./provider.js";
import { customerOf } from "./store.js";

export async function openPortal(input: {
  db: Queryable;
  provider: BillingProvider;
  organizationId: string;
  returnUrl: string;
}): Promise<BillingRedirect> {
  const customer = await customerOf(input.db, input.organizationId);
  if (!customer)
    throw new ServiceError(
      "NO_BILLING_CUSTOMER",
      "the organization is not a customer of the billing provider yet; buy a plan through checkout first",
    );
  return { url: await input.provider.createPortalSession(customer, input.returnUrl), expires_at: null };
}
