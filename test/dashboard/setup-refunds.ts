/**
 * What the journey needs that later dashboard pages will make (a decision-only integration and
 * tool, a policy): created through the Cloud API with the owner's own browser session, Origin and
 * csrf token, as the dashboard's requests are.
 */
import type { Page } from "playwright-core";
import { newEmail, signUpInBrowser, type DashboardWorld } from "../fixtures/dashboard.js";

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

export interface RefundsOrganization {
  owner: Page;
  ownerEmail: string;
  orgId: string;
  policyId: string;
  gatewayKey: string;
}

/**
 * An owner signed up in the browser with an organization named `name` and its principal (backup
 * downloaded), the refunds policy active, agent refund-bot under it with a gateway key and a
 * delegation of payments.* signed in the browser, the owner's signing key bound in the browser (so
 * calls held for an owner's approval have an approver), and three calls recorded through the
 * Gateway for the reports and impact previews: 50 EUR (allowed), 500 and 5000 EUR (held).
 */
export async function refundsOrganization(world: DashboardWorld, name: string): Promise<RefundsOrganization> {
  const ownerEmail = newEmail("owner");
  const owner = (await world.person()).page;
  await signUpInBrowser(world, owner, ownerEmail);
  await owner.getByLabel("Name").fill(name);
  await owner.getByRole("button", { name: "Create" }).click();
  await owner.getByRole("button", { name: "Create the principal" }).click();
  await owner.getByRole("link", { name: "Download the key backup" }).click();
  await owner.getByRole("button", { name: "Register the principal" }).click();
  await owner.getByTestId("principal-held").waitFor();
  const orgId = new URL(owner.url()).pathname.split("/")[2]!;
  const { policyId } = await configureDecisionOnlyRefunds(owner, orgId);
  const agent = (
    await sessionRequest(owner, "POST", `/orgs/${orgId}/agents`, { name: "refund-bot", policy_id: policyId })
  ).agent;
  const gatewayKey: string = (
    await sessionRequest(owner, "POST", `/orgs/${orgId}/api-keys`, {
      name: "bot",
      kind: "gateway",
      agent_id: agent.id,
    })
  ).secret;
  await owner.goto(`/orgs/${orgId}/agents/${agent.id}`);
  await owner.getByLabel(/^Permissions/).fill("payments.*");
  await owner.getByRole("button", { name: "Sign and grant" }).click();
  await owner.getByTestId("delegations").getByText("payments.*").waitFor();
  await owner.goto("/account");
  await owner.getByRole("button", { name: "Make and bind a key in this browser" }).click();
  await owner.getByTestId("identities").getByText("in this browser").waitFor();
  for (const [order, amount] of [
    ["P-1", 50],
    ["P-2", 500],
    ["P-3", 5000],
  ] as const)
    await world.gateway.authorize(gatewayKey, {
      tool: "refund_payment",
      arguments: { amount, order },
      idempotency_key: order,
    });
  return { owner, ownerEmail, orgId, policyId, gatewayKey };
}

/** Replaces the policy editor's text by keyboard, as a person would (select all, then type). */
export async function typeDocument(page: Page, text: string): Promise<void> {
  const editor = page.getByRole("textbox", { name: "Policy document" });
  await editor.focus();
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(text);
}

/** Opens one tab of a policy's page. */
export const policyTab = (page: Page, name: string) =>
  page.getByRole("navigation", { name: "Policy" }).getByRole("link", { name, exact: true }).click();
