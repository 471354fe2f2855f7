import type { LanguageGate } from "@countersign/protocol/wire";
import type { Queryable } from "@countersign/core/store";
import { gatewayReports } from "./gateway-reports-store.js";

/**
 * The language gate of SPEC 3.4 step 2 (docs/policy-rollout.md): a
 * revision-2 document may be activated only once every Gateway is confirmed
 * to support revision 2. Gateways upsert their `gateway_instances` row at
 * start and every 15 s; a row seen within RECENT_SECONDS is "recently
 * reported". The gate is closed when
 * - no Gateway reported recently (nobody can confirm anything),
 * - a recently reported Gateway lacks revision 2 (an outdated one still runs),
 * - a decision of this organization in the last 30 minutes was made by a
 *   Gateway that recorded an older revision (it may still be draining).
 */
export const RECENT_SECONDS = 60;
export const OLDER_DECISIONS_MINUTES = 30;

export type { LanguageGate };

export async function languageGate(db: Queryable, organizationId: string, now: Date): Promise<LanguageGate> {
  const r = await gatewayReports(db, organizationId, now, RECENT_SECONDS, OLDER_DECISIONS_MINUTES);
  const gateways = r.recent;
  if (gateways === 0) return { open: false, reason: "no_recent_gateway", gateways };
  if (r.outdated?.length)
    return { open: false, reason: "outdated_gateway_running", gateways, outdated_instances: r.outdated };
  if (r.older_decisions) return { open: false, reason: "older_gateway_decided_recently", gateways };
  return { open: true, gateways };
}

export const gateMessages: Record<Exclude<LanguageGate, { open: true }>["reason"], string> = {
  no_recent_gateway:
    "no Gateway reported in the last minute, so none is confirmed to support language revision 2",
  outdated_gateway_running: "a running Gateway does not support language revision 2; upgrade it first",
  older_gateway_decided_recently:
    "a Gateway without language revision 2 decided this organization's calls in the last 30 minutes",
};
