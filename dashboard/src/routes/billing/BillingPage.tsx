import { Group, Stack, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { billingApi } from "../../api/billing.js";
import { overviewApi } from "../../api/overview.js";
import type { Billing, BillingRedirect } from "@countersign/protocol/wire";
import { useCurrentOrganization } from "../../session/organization.js";
import { ActionButton } from "../../components/ActionButton.js";
import { Allowances } from "../../components/Allowances.js";
import { Facts } from "../../components/Facts.js";
import { Loaded, LoadingLine } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { StatusBadge } from "../../components/StatusBadge.js";

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
  if (!org) return <LoadingLine />;
  const owner = org.role === "owner";
  // The provider's page (a checkout or the customer portal) is where the browser goes next.
  const goTo = async (redirect: Promise<BillingRedirect>) => window.location.assign((await redirect).url);
  return (
    <Stack gap="lg">
      <PageHeader
        title="Plan and billing"
        description="The plan in effect, how it is bought, and what the organization uses of each allowance."
      />
      <Loaded query={billing}>
        {(b) => (
          <Stack gap="md" data-testid="billing">
            <Facts
              items={[
                { term: "Plan", value: b.plan, testId: "plan" },
                {
                  term: "Billing",
                  testId: "billing-status",
                  value: b.configured
                    ? "configured: plans are bought through the billing provider"
                    : "not configured: plans cannot be bought in this installation; the plan above applies",
                },
                {
                  term: "Subscription",
                  hidden: !b.subscription,
                  testId: "subscription",
                  value: b.subscription && (
                    <Group gap="xs" component="span">
                      <StatusBadge status={b.subscription.status} />
                      <span>
                        {b.subscription.plan}, {stateWords[b.subscription.status]}
                        {b.subscription.current_period_end &&
                          ` (period ends ${new Date(b.subscription.current_period_end).toLocaleDateString()})`}
                      </span>
                    </Group>
                  ),
                },
                {
                  term: "Data retention",
                  value:
                    b.quotas.retention_days === null
                      ? "kept until deleted"
                      : `${b.quotas.retention_days} days`,
                },
              ]}
            />
            {b.configured && owner && (
              <Group
                component="section"
                aria-label="Buy or manage"
                data-testid="billing-actions"
                gap="sm"
                align="flex-start"
              >
                {!b.subscription &&
                  b.purchasable.map((plan) => (
                    <ActionButton key={plan} onClick={() => goTo(billingApi.checkout(orgId, { plan }))}>
                      Buy the {plan} plan
                    </ActionButton>
                  ))}
                <ActionButton variant="default" onClick={() => goTo(billingApi.portal(orgId))}>
                  Manage the subscription
                </ActionButton>
              </Group>
            )}
            {b.configured && !owner && (
              <Text size="sm" c="dimmed">
                Only an owner buys or changes the plan.
              </Text>
            )}
          </Stack>
        )}
      </Loaded>
      <Stack component="section" aria-labelledby="allowances-heading" gap="sm">
        <Title order={2} size="h3" id="allowances-heading">
          Allowances
        </Title>
        <Loaded query={usage}>{(u) => <Allowances usage={u} />}</Loaded>
      </Stack>
    </Stack>
  );
}
