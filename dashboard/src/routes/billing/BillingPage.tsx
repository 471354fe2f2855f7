import { useQuery } from "@tanstack/react-query";
import { billingApi } from "../../api/billing.js";
import { overviewApi } from "../../api/overview.js";
import type { Billing, BillingRedirect } from "@countersign/protocol/wire";
import { useCurrentOrganization } from "../../session/organization.js";
import { ActionButton } from "../../components/ActionButton.js";
import { Allowances } from "../../components/Allowances.js";
import { Loaded } from "../../components/Loading.js";

const stateWords: Record<NonNullable<Billing["subscription"]>["status"], string> = {
  active: "active",
  trialing: "in its trial",
  past_due: "past due: the provider is retrying the payment",
  scheduled_cancel: "cancelled: it ends at the end of the period paid for",
};

/**
 * The plan in effect, whether plans can be bought in this installation, and what is used of each
 * allowance. With billing configured the owner buys a plan through Stripe Checkout and manages the
 * subscription in Stripe's customer portal (docs/billing.md): both are pages of the provider, so
 * the browser goes there; the plan changes when the provider's event arrives.
 */
export function BillingPage() {
  const { orgId, org } = useCurrentOrganization();
  const billing = useQuery({ ...billingApi.query(orgId), enabled: !!org });
  const usage = useQuery({ ...overviewApi.usageQuery(orgId), enabled: !!org });
  if (!org) return <main className="muted">Loading…</main>;
  const owner = org.role === "owner";
  // The provider's page (a checkout or the customer portal) is where the browser goes next.
  const goTo = async (redirect: Promise<BillingRedirect>) => window.location.assign((await redirect).url);
  return (
    <main>
      <h1>Plan and billing</h1>
      <Loaded query={billing}>
        {(b) => (
          <>
            <dl className="facts" data-testid="billing">
              <dt>Plan</dt>
              <dd data-testid="plan">{b.plan}</dd>
              <dt>Billing</dt>
              <dd data-testid="billing-status">
                {b.configured
                  ? "configured: plans are bought through the billing provider"
                  : "not configured: plans cannot be bought in this installation; the plan above applies"}
              </dd>
              {b.subscription && (
                <>
                  <dt>Subscription</dt>
                  <dd data-testid="subscription">
                    {b.subscription.plan}, {stateWords[b.subscription.status]}
                    {b.subscription.current_period_end &&
                      ` (period ends ${new Date(b.subscription.current_period_end).toLocaleDateString()})`}
                  </dd>
                </>
              )}
              <dt>Data retention</dt>
              <dd>
                {b.quotas.retention_days === null ? "kept until deleted" : `${b.quotas.retention_days} days`}
              </dd>
            </dl>
            {b.configured && owner && (
              <section aria-label="Buy or manage" data-testid="billing-actions">
                {!b.subscription &&
                  b.purchasable.map((plan) => (
                    <ActionButton key={plan} onClick={() => goTo(billingApi.checkout(orgId, { plan }))}>
                      Buy the {plan} plan
                    </ActionButton>
                  ))}
                <ActionButton onClick={() => goTo(billingApi.portal(orgId))}>
                  Manage the subscription
                </ActionButton>
              </section>
            )}
            {b.configured && !owner && <p className="muted">Only an owner buys or changes the plan.</p>}
          </>
        )}
      </Loaded>
      <h2>Allowances</h2>
      <Loaded query={usage}>{(u) => <Allowances usage={u} />}</Loaded>
    </main>
  );
}
