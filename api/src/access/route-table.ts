import type { KeyRule, Method, RouteAccess, Who } from "./types.js";

/**
 * Who may call every Cloud API route, exactly as the tables of SPEC 4.4 and
 * 5.3 say. This table is the only place access is declared: a route
 * registered under /api/v1 without a row here fails at startup, and the
 * route-table test walks every registered route with every kind of caller.
 * Later issues add their routes' handlers; their rows are already here.
 *
 * Finer rules inside a route (an owner-only field, a developer seeing gateway
 * keys only, management keys needing Admins) are the handler's, noted in `why`.
 */
function row(
  spec: `${Method} /${string}`,
  who: Who,
  key: KeyRule,
  extra: Partial<RouteAccess> = {},
): RouteAccess {
  const [method, path] = spec.split(" ") as [Method, string];
  return { method, path, who, key, ...extra };
}

const unverified = { unverifiedAllowed: true };

export const routeTable: readonly RouteAccess[] = [
  // Account and session (act on the signed-in person)
  row("POST /auth/signup", "anyone", "no"),
  row("POST /auth/signin", "anyone", "no"),
  row("POST /auth/signout", "signed-in", "no", unverified),
  row("GET /auth/session", "signed-in", "no", unverified),
  row("POST /auth/password", "signed-in", "no", unverified),
  row("POST /auth/email/verify", "anyone", "no"),
  row("POST /auth/email/resend", "anyone", "no"),
  row("POST /auth/email/change/approve", "anyone", "no"),
  row("POST /auth/email/change/reject", "anyone", "no"),
  row("POST /me/email", "signed-in", "no", unverified),
  // Not in SPEC 4.4: deleting one's account (docs/access.md), which SPEC 5.4 and 6.4 react to.
  row("DELETE /me", "signed-in", "no", unverified),
  // Not in SPEC 4.4: the person's own preferences (approver e-mails; docs/access.md).
  row("PATCH /me", "signed-in", "no"),
  row("POST /auth/password-reset", "anyone", "no"),
  row("POST /auth/password-reset/confirm", "anyone", "no"),
  row("POST /me/identity-challenges", "signed-in", "no"),
  row("GET /me/identities", "signed-in", "no"),
  row("POST /me/identities", "signed-in", "no"),
  row("DELETE /me/identities/:kid", "signed-in", "no"),
  row("POST /invitations/accept", "signed-in", "no"),
  row("GET /gateway/identity", "signed-in-or-key", "any"),
  // Not in SPEC 4.4: the Cloud API's OpenAPI document (docs/openapi.md), public like the spec it
  // describes; a client that sends its management key everywhere may fetch it with the key too.
  row("GET /openapi.json", "anyone", "any"),

  // Organizations, members, invitations
  row("GET /orgs", "signed-in", "no"), // the caller's organizations (not in 4.4; the dashboard's switcher)
  row("POST /orgs", "signed-in", "no"),
  row("GET /orgs/:org_id", "members", "read"),
  row("PATCH /orgs/:org_id", "admins", "no"), // observe settings, data_retention_days: owner (handler)
  row("POST /orgs/:org_id/switch", "members", "no"),
  row("GET /orgs/:org_id/members", "members", "no"),
  row("PATCH /orgs/:org_id/members/:user_id", "admins", "no"), // granting or changing owner: owner (handler)
  row("DELETE /orgs/:org_id/members/:user_id", "members", "no"), // yourself; others admins; an owner: owner (handler)
  row("GET /orgs/:org_id/invitations", "admins", "no"),
  row("POST /orgs/:org_id/invitations", "admins", "no"),
  row("DELETE /orgs/:org_id/invitations/:invitation_id", "admins", "no"),
  row("GET /orgs/:org_id/principal", "members", "read"),
  row("POST /orgs/:org_id/principal", "owner", "no"),
  // Operator bindings (DESIGN "Kubernetes"; not in 4.4): owner actions
  row("GET /orgs/:org_id/operator-bindings", "owner", "no"),
  row("POST /orgs/:org_id/operator-bindings", "owner", "no"),
  row("DELETE /orgs/:org_id/operator-bindings/:binding_id", "owner", "no"),

  // API keys and audit log
  row("GET /orgs/:org_id/api-keys", "writers", "no"), // developers see gateway keys only (handler)
  row("POST /orgs/:org_id/api-keys", "writers", "no"), // management keys: Admins (handler)
  row("GET /orgs/:org_id/api-keys/:key_id", "writers", "no"), // beyond the spec, like the list (handler)
  row("POST /orgs/:org_id/api-keys/:key_id/revoke", "writers", "no"), // same as creating that kind (handler)
  row("GET /orgs/:org_id/audit", "admins", "no"),

  // Agents, delegations, observe windows
  row("GET /orgs/:org_id/agents", "members", "read"),
  row("GET /orgs/:org_id/agents/:agent_id", "members", "read"),
  row("POST /orgs/:org_id/agents", "writers", "agents:write"),
  row("PATCH /orgs/:org_id/agents/:agent_id", "writers", "agents:write"), // switching the policy: Admins, signed in (handler)
  row("GET /orgs/:org_id/agents/:agent_id/delegations", "members", "read"),
  row("POST /orgs/:org_id/agents/:agent_id/delegations", "admins", "no"),
  row("POST /orgs/:org_id/delegations/:delegation_id/revoke", "admins", "no"),
  row("POST /orgs/:org_id/agents/:agent_id/dry-run", "members", "read"),
  row("GET /orgs/:org_id/agents/:agent_id/observe", "members", "read"),
  row("GET /orgs/:org_id/observe-windows", "members", "read"),
  row("GET /orgs/:org_id/observe-windows/:window_id", "members", "read"),
  row("GET /orgs/:org_id/observe-windows/:window_id/report", "members", "read"),
  row("POST /orgs/:org_id/agents/:agent_id/observe", "admins", "no"),
  row("POST /orgs/:org_id/agents/:agent_id/observe/end", "writers", "agents:write"),
  row("POST /orgs/:org_id/observe/end-all", "writers", "agents:write"),

  // MCP servers and tools
  row("GET /orgs/:org_id/mcp-servers", "members", "read"),
  row("GET /orgs/:org_id/mcp-servers/:server_id", "members", "read"),
  row("POST /orgs/:org_id/mcp-servers", "writers", "tools:write"),
  row("PATCH /orgs/:org_id/mcp-servers/:server_id", "writers", "tools:write"), // changing an enabled tool's binding: Admins, signed in (handler)
  row("DELETE /orgs/:org_id/mcp-servers/:server_id", "writers", "tools:write"),
  row("POST /orgs/:org_id/mcp-servers/:server_id/discover", "writers", "tools:write"),
  row("GET /orgs/:org_id/tools", "members", "read"),
  row("GET /orgs/:org_id/tools/:tool_id", "members", "read"),
  row("POST /orgs/:org_id/tools", "writers", "tools:write"), // enabling: Admins, signed in (handler)
  row("PATCH /orgs/:org_id/tools/:tool_id", "writers", "tools:write"), // enabling or changing meaning: Admins, signed in (handler)
  row("POST /orgs/:org_id/tools/:tool_id/authorize", "admins", "tools:write", {
    keyRefusedAfterScope: "ADMIN_REQUIRED",
  }),

  // Policies
  row("GET /orgs/:org_id/policies", "members", "read"),
  row("GET /orgs/:org_id/policies/:policy_id", "members", "read"),
  row("GET /orgs/:org_id/policy-templates", "members", "read"),
  row("GET /orgs/:org_id/policy-status", "members", "read"),
  row("POST /orgs/:org_id/policies/validate", "members", "read"),
  row("POST /orgs/:org_id/policies", "writers", "policies:write"),
  row("POST /orgs/:org_id/policies/from-template", "writers", "policies:write"),
  row("POST /orgs/:org_id/policies/:policy_id/versions", "writers", "policies:write"),
  row("POST /orgs/:org_id/policies/:policy_id/versions/:version_id/activate", "admins", "no"),
  row("POST /orgs/:org_id/policies/:policy_id/rollback", "admins", "no"),
  row("POST /orgs/:org_id/policies/:policy_id/emergency", "admins", "no"),
  row("POST /orgs/:org_id/policies/:policy_id/supersede-open-actions", "admins", "no"),
  row("PATCH /orgs/:org_id/policies/:policy_id", "admins", "no"),
  row("PUT /orgs/:org_id/policies/:policy_id/shadow", "writers", "policies:write"),
  row("DELETE /orgs/:org_id/policies/:policy_id/shadow", "writers", "policies:write"),
  row("PUT /orgs/:org_id/policies/:policy_id/examples", "writers", "policies:write"),
  row("POST /orgs/:org_id/policies/:policy_id/simulate", "members", "read"),
  row("GET /orgs/:org_id/policies/:policy_id/simulations", "members", "read"),
  row("GET /orgs/:org_id/policies/:policy_id/simulations/:simulation_id", "members", "read"),
  row("GET /orgs/:org_id/policies/:policy_id/shadow/report", "members", "read"),
  row("GET /orgs/:org_id/policies/:policy_id/versions/:version_id", "members", "read"),
  row("GET /orgs/:org_id/policies/:policy_id/versions/:version_id/decision-map", "members", "read"),
  // Not in SPEC 4.4: the activation's impact preview, to review before activating (docs/access.md).
  row("GET /orgs/:org_id/policies/:policy_id/versions/:version_id/impact", "members", "read"),
  row("GET /orgs/:org_id/policies/:policy_id/diff", "members", "read"),
  row("POST /orgs/:org_id/policies/:policy_id/simulations", "writers", "policies:write"),
  row("GET /orgs/:org_id/policies/:policy_id/evidence", "admins", "no"),

  // Approvals, actions, receipts
  row("GET /orgs/:org_id/approvals", "members", "approvals:read"),
  row("GET /orgs/:org_id/approvals/:approval_id", "members", "approvals:read"),
  // Only the approving roles decide (SPEC 5.6); which of them the request lists is the handler's check.
  row("POST /orgs/:org_id/approvals/:approval_id/decision", "approvers", "no"),
  row("GET /orgs/:org_id/actions", "members", "read"),
  row("GET /orgs/:org_id/actions/:action_id", "members", "read"),
  row("POST /orgs/:org_id/actions/:action_id/cancel", "admins", "no"),
  row("GET /orgs/:org_id/receipts", "members", "receipts:read"),
  row("GET /orgs/:org_id/receipts/:receipt_id", "members", "receipts:read"),
  row("GET /orgs/:org_id/receipts/:receipt_id/decision-check", "members", "receipts:read"),
  row("GET /orgs/:org_id/receipts/:receipt_id/bundle", "members", "receipts:read"),

  // Overview, webhooks, billing
  row("GET /orgs/:org_id/overview", "members", "read"),
  row("GET /orgs/:org_id/usage", "members", "read"),
  row("GET /orgs/:org_id/billing", "members", "read"),
  row("GET /orgs/:org_id/webhooks", "writers", "no"),
  row("POST /orgs/:org_id/webhooks", "writers", "no"),
  row("GET /orgs/:org_id/webhooks/:webhook_id", "writers", "no"),
  row("PATCH /orgs/:org_id/webhooks/:webhook_id", "writers", "no"),
  row("DELETE /orgs/:org_id/webhooks/:webhook_id", "writers", "no"),
  row("GET /orgs/:org_id/webhooks/:webhook_id/deliveries", "writers", "no"),
  row("POST /orgs/:org_id/webhooks/:webhook_id/deliveries/:delivery_id/redeliver", "writers", "no"),
  row("POST /orgs/:org_id/webhooks/:webhook_id/test", "writers", "no"),
  row("POST /orgs/:org_id/billing/checkout", "owner", "no"),
  row("POST /orgs/:org_id/billing/portal", "owner", "no"),
  // Not in SPEC 4.4's tables: the route the billing provider pushes events to (SPEC 4.4, "not for scripts"); its Stripe signature is the credential (docs/billing.md).
  row("POST /billing/stripe/events", "anyone", "no"),
];

/** `/orgs/:org_id/members/:user_id` and `/orgs/:id/members/:uid` are the same route. */
export function routeShape(method: string, path: string): string {
  return `${method} ${path.replace(/:[A-Za-z_][A-Za-z0-9_]*/g, ":")}`;
}

const byShape = new Map(routeTable.map((r) => [routeShape(r.method, r.path), r]));

export function accessOf(
  method: string,
  path: string,
  table: readonly RouteAccess[] = routeTable,
): RouteAccess | undefined {
  if (table === routeTable) return byShape.get(routeShape(method, path));
  return table.find((r) => routeShape(r.method, r.path) === routeShape(method, path));
}
