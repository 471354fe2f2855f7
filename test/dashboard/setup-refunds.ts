/**
 * What the journey needs that later dashboard pages will make (a decision-only integration and
 * tool, a policy): created through the Cloud API with the owner's own browser session, Origin and
 * csrf token, as the dashboard's requests are.
 */
import type { Page } from "playwright-core";

/** A Cloud API request with the page's own session cookie, Origin and csrf token; throws on an error status. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function sessionRequest(page: Page, method: string, path: string, body?: unknown): Promise<any> {
  const origin = new URL(page.url()).origin;
  const session = await (await page.request.get(`${origin}/api/v1/auth/session`)).json();
  const res = await page.request.fetch(`${origin}/api/v1${path}`, {
    method,
    headers: {
      origin,
      "x-service-csrf": session.session.csrf_token,
      // Without a body there is no JSON to announce (the Cloud API refuses an empty JSON body).
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    data: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status() >= 300) throw new Error(`${method} ${path}: ${res.status()} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** A decision-only refund tool and a policy holding refunds over 100 EUR for an owner or admin's approval. */
export async function configureDecisionOnlyRefunds(
  page: Page,
  orgId: string,
  approverRoles = ["owner", "admin", "approver"],
): Promise<{ policyName: string; policyId: string }> {
  const integration = (
    await sessionRequest(page, "POST", `/orgs/${orgId}/mcp-servers`, {
      kind: "decision_only",
      name: "billing system",
    })
  ).mcp_server;
  const draft = (
    await sessionRequest(page, "POST", `/orgs/${orgId}/tools`, {
      mcp_server_id: integration.id,
      exposed_name: "refund_payment",
      action: "payments.refund",
      amount_mapping: { amount_path: "amount", currency: "EUR" },
      enabled: false,
    })
  ).tool;
  await sessionRequest(page, "POST", `/orgs/${orgId}/tools/${draft.id}/authorize`, {
    binding_digest: draft.binding.digest,
  });
  await sessionRequest(page, "PATCH", `/orgs/${orgId}/tools/${draft.id}`, { enabled: true });
  const document = {
    revision: 1,
    default_effect: "deny",
    rules: [
      {
        id: "large-refunds",
        effect: "require_approval",
        conditions: [{ field: "amount", op: "gt", threshold: "100", currency: "EUR" }],
        approvers: { roles: approverRoles, count: 1 },
      },
      {
        id: "small-refunds",
        effect: "allow",
        conditions: [{ field: "amount", op: "lte", threshold: "100", currency: "EUR" }],
      },
    ],
  };
  const policyName = "refunds";
  const created = await sessionRequest(page, "POST", `/orgs/${orgId}/policies`, {
    name: policyName,
    document,
  });
  await sessionRequest(
    page,
    "POST",
    `/orgs/${orgId}/policies/${created.policy.id}/versions/${created.version.id}/activate`,
    { expected_active_version_id: null },
  );
  return { policyName, policyId: created.policy.id };
}
