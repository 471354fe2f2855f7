import { useQuery } from "@tanstack/react-query";
import { api } from "../../api/client.js";
import type { Billing, Usage } from "../../api/types.js";
import { useCurrentOrganization } from "../../app/organization.js";
import { Allowances } from "../../components/Allowances.js";
import { Loaded } from "../../components/Loading.js";

/** The plan in effect, whether plans can be bought in this installation, and what is used of each allowance. */
export function BillingPage() {
  const { orgId, org } = useCurrentOrganization();
  const billing = useQuery({
    queryKey: ["billing", orgId],
    queryFn: () => api.get<Billing>(`/orgs/${orgId}/billing`),
    enabled: !!org,
  });
  const usage = useQuery({
    queryKey: ["usage", orgId],
    queryFn: () => api.get<Usage>(`/orgs/${orgId}/usage`),
    enabled: !!org,
  });
  if (!org) return <main className="muted">Loading…</main>;
  return (
    <main>
      <h1>Plan and billing</h1>
      <Loaded query={billing}>
        {(b) => (
          <dl className="facts" data-testid="billing">
            <dt>Plan</dt>
            <dd data-testid="plan">{b.plan}</dd>
            <dt>Billing</dt>
            <dd data-testid="billing-status">
              {b.configured
                ? "configured: plans are bought through the billing provider"
                : "not configured: plans cannot be bought in this installation; the plan above applies"}
            </dd>
            <dt>Data retention</dt>
            <dd>
              {b.quotas.retention_days === null ? "kept until deleted" : `${b.quotas.retention_days} days`}
            </dd>
          </dl>
        )}
      </Loaded>
      <h2>Allowances</h2>
      <Loaded query={usage}>{(u) => <Allowances usage={u} />}</Loaded>
    </main>
  );
}
