import type { FastifyRequest } from "fastify";
import type { Queryable } from "@countersign/core/store";
import { enforceLimits, type Hit } from "../rate-limits/counter.js";

const WRITE_SCOPES = ["agents:write", "tools:write", "policies:write"];

/**
 * SPEC 8.1: simulations, shadow reports, decision maps, diffs (and observe
 * window reports) count 10 per minute per organization; read-only callers
 * (viewers, approvers, management keys without a write scope) also count
 * against a share of 5, so they can never use the whole budget. A refused
 * request is counted nowhere (hit_rate_limits is all or nothing).
 */
export function isReadOnlyCaller(request: FastifyRequest): boolean {
  const p = request.principal;
  if (p.kind === "management_key") return !p.key.scopes.some((s) => WRITE_SCOPES.includes(s));
  const role = request.organization?.role;
  return role === "viewer" || role === "approver";
}

export async function enforceAnalysisLimit(
  db: Queryable,
  request: FastifyRequest,
  organizationId: string,
): Promise<void> {
  const hits: Hit[] = [{ name: "analysisPerOrganization", subject: organizationId }];
  if (isReadOnlyCaller(request))
    hits.push({ name: "analysisReadOnlyPerOrganization", subject: organizationId });
  await enforceLimits(db, hits);
}
