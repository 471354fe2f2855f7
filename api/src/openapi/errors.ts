import { z } from "zod";
import { cloudApiCodes } from "@countersign/protocol/errors";
import { errorBodySchema } from "@countersign/protocol/wire";
import type { RouteAccess } from "../access/types.js";
import { routeShape } from "../access/route-table.js";

/**
 * The error answers a route documents: the spec's error body (SPEC 7.1,
 * protocol/src/wire/errors.ts) on every status the route can give, and for
 * each status the codes of the catalog (protocol/src/errors) with that status.
 *
 * Per-route code lists would be guesswork, so the statuses are derived from
 * what every route shares and the codes are listed generically, per status
 * (docs/openapi.md):
 * - every route: 400, 404 (a path that names nothing), 429 (per-IP and
 *   per-credential limits), 500, 503 (the database unavailable, draining),
 *   401 and 403 (a credential that is invalid or not taken here is refused
 *   even on the routes anyone may call; sign-in's INVALID_CREDENTIALS);
 * - a route with a body (POST, PUT, PATCH): 413, 415;
 * - an unsafe route (its domain rules): 402, 409, 410, 422, 502, 504;
 * - a read with a domain refusal of its own: listed in `readRefusals`.
 */
const EVERY = [400, 401, 403, 404, 429, 500, 503];
const BODY = [413, 415];
const DOMAIN = [402, 409, 410, 422, 502, 504];

/** Reads that refuse with a domain status, by route shape (api/src/access/route-table.ts). */
const readRefusals: Record<string, number[]> = Object.fromEntries(
  Object.entries({
    // A receipt whose evidence retention deleted (api/src/receipts/vouched-bundle.ts): 410 EVIDENCE_EXPIRED.
    "GET /orgs/:org_id/receipts/:receipt_id": [410],
    "GET /orgs/:org_id/receipts/:receipt_id/decision-check": [410],
    "GET /orgs/:org_id/receipts/:receipt_id/bundle": [410],
    // No shadow version: 409 NO_SHADOW.
    "GET /orgs/:org_id/policies/:policy_id/shadow/report": [409],
    // No active version and no `from`: 409 NO_ACTIVE_POLICY; a version of the query naming none: 422 POLICY_NOT_FOUND.
    "GET /orgs/:org_id/policies/:policy_id/diff": [409, 422],
  }).map(([route, statuses]) => {
    const [method, path] = route.split(" ");
    return [routeShape(method!, path!), statuses];
  }),
);

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const WITH_BODY = new Set(["POST", "PUT", "PATCH"]);

/** The statuses other than success a route of the table can answer. */
export function errorStatusesOf(access: RouteAccess): number[] {
  const statuses = new Set(EVERY);
  if (WITH_BODY.has(access.method)) BODY.forEach((s) => statuses.add(s));
  if (UNSAFE.has(access.method)) DOMAIN.forEach((s) => statuses.add(s));
  for (const s of readRefusals[routeShape(access.method, access.path)] ?? []) statuses.add(s);
  return [...statuses].sort((a, b) => a - b);
}

/** The catalog's codes answered with this status. */
export function codesOf(status: number): string[] {
  return Object.entries(cloudApiCodes)
    .filter(([, s]) => s === status)
    .map(([code]) => code)
    .sort();
}

/** Statuses whose answer tells when to retry. */
const RETRY_AFTER = new Set([429, 503]);

/**
 * One error answer: `zod` in @fastify/swagger's content form, its schema still
 * zod (the zod transform converts it), and the headers it documents (added
 * after the transform, which keeps only description and content).
 */
export function errorResponse(status: number) {
  const codes = codesOf(status);
  return {
    zod: {
      description: `An error (SPEC 7.1); \`error.code\` is one of: ${codes.join(", ")}.`,
      content: { "application/json": { schema: errorBodySchema } },
    },
    headers: RETRY_AFTER.has(status) ? { "retry-after": retryAfter } : undefined,
  };
}

const retryAfter = {
  type: "string",
  pattern: "^[0-9]+$",
  description: "Seconds to wait before retrying.",
};

/** The error body as a named component, referenced by every error answer. */
export const errorComponents = z.registry<{ id: string }>();
errorComponents.add(errorBodySchema, { id: "ErrorBody" });
