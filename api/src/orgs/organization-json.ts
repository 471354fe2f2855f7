import { quotas, type Plan } from "@countersign/core/plans";
import type { Organization, Role } from "@countersign/protocol/wire";

export interface OrganizationRow {
  id: string;
  name: string;
  slug: string;
  created_at: Date;
  approval_ttl_seconds: number;
  observe_max_hours: number;
  observe_live_opt_in: boolean;
  agent_disclosure: Organization["agent_disclosure"];
  data_retention_days: number | null;
  plan: string | null;
}

export const ORGANIZATION_COLUMNS =
  "id, name, slug, created_at, approval_ttl_seconds, observe_max_hours, observe_live_opt_in, agent_disclosure, data_retention_days, plan";

/** The organization record, with the retention periods in effect. */
export function organizationJson(o: OrganizationRow, plan: Plan, role: Role | null): Organization {
  const planDays = quotas[plan].retentionDays;
  const own = o.data_retention_days;
  const effective = own === null ? planDays : planDays === null ? own : Math.min(own, planDays);
  return {
    id: o.id,
    name: o.name,
    slug: o.slug,
    created_at: o.created_at.toISOString(),
    plan,
    role,
    approval_ttl_seconds: o.approval_ttl_seconds,
    observe_max_hours: o.observe_max_hours,
    observe_live_opt_in: o.observe_live_opt_in,
    agent_disclosure: o.agent_disclosure,
    data_retention_days: own,
    data_retention: { plan_days: planDays, organization_days: own, effective_days: effective },
  };
}
