/**
 * Every page of the dashboard (every route of dashboard/src/app/App.tsx), in the light and the dark
 * theme, as Chromium shows it when the operating system asks for one or the other: axe-core finds no
 * violation of any impact (minor, moderate, serious, critical; colour contrast included, which is
 * where a dark theme usually fails), the page shows its one h1 and no error, and the browser reports
 * no Content-Security-Policy violation (the design system's <style> elements carry the nonce).
 * With DASHBOARD_SCREENSHOTS=1 each page is pictured in both themes into docs/dashboard/page-*.png,
 * the gallery of docs/dashboard.md.
 *
 * The organization toured has something on every page. Its owner, principal, delegation and signing
 * key are made in the dashboard (refundsOrganization), and the pending request is approved there;
 * the rest (a second policy version set as shadow, a management key, a webhook endpoint, an
 * invitation, an observe window) is set up through the Cloud API with the owner's own browser
 * session, and the agent's calls go through the Gateway: this test is about what the pages show,
 * not about making things, which the other files of test/dashboard test. Every page visit and every
 * check is done in the browser.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { newEmail, screenshot, startDashboardWorld, type DashboardWorld } from "../fixtures/dashboard.js";
import { ok, startReceiver, type Receiver } from "../fixtures/https-receiver.js";
import { violations } from "./axe.js";
import { refundsOrganization, sessionRequest, type RefundsOrganization } from "./setup-refunds.js";

let world: DashboardWorld;
let receiver: Receiver;
let dir: string;
let org: RefundsOrganization;
/** A browser that never signed in, for the pages people reach from an e-mail or before an account. */
let visitor: Page;
/** Content-Security-Policy reports of either browser, since the page visited last was opened. */
const cspReports: string[] = [];
/** The ids the pages' paths name, filled in by beforeAll. */
const ids: Record<string, string> = {};

interface Stop {
  /** The picture's name: docs/dashboard/page-<name>-<theme>.png */
  name: string;
  path: () => string;
  /** The h1's text. */
  heading: RegExp;
  signedOut?: boolean;
  /** The page is about a refusal (an e-mail link without its token): its error notice is expected. */
  showsError?: boolean;
  /** h1 elements on the page when not one (a third party's viewer titling what it shows). */
  h1s?: number;
  /**
   * A third party's viewer writes style attributes into markup, which the policy refuses (and no
   * nonce can admit): those reports, and only those, are expected on its page
   * (test/dashboard/api-reference.test.ts says which).
   */
  writesStyleAttributes?: boolean;
}

const o =
  (p = "") =>
  () =>
    `/orgs/${org.orgId}${p}`;
const stops: Stop[] = [
  { name: "sign-in", path: () => "/sign-in", heading: /^Sign in$/, signedOut: true },
  { name: "sign-up", path: () => "/sign-up", heading: /account/i, signedOut: true },
  {
    name: "verify-email",
    path: () => "/verify-email",
    heading: /Verify your e-mail/,
    signedOut: true,
    showsError: true,
  },
  { name: "verify-email-resend", path: () => "/verify-email/resend", heading: /Resend/, signedOut: true },
  { name: "password-reset", path: () => "/password-reset", heading: /Reset your password/, signedOut: true },
  {
    name: "password-reset-new",
    path: () => "/password-reset#token=tour-token",
    heading: /new password/,
    signedOut: true,
  },
  {
    name: "email-change-approve",
    path: () => "/email-change/approve#token=tour-token",
    heading: /new e-mail address/,
    signedOut: true,
  },
  {
    name: "email-change-reject",
    path: () => "/email-change/reject#token=tour-token",
    heading: /e-mail change/,
    signedOut: true,
  },
  {
    name: "invitation-accept",
    path: () => "/invitations/accept#token=tour-token",
    heading: /Join an organization/,
    signedOut: true,
  },
  { name: "verify", path: () => "/verify", heading: /Verify a receipt bundle/, signedOut: true },
  { name: "not-found", path: () => "/no-such-page", heading: /not exist|not found/i, signedOut: true },
  { name: "overview", path: o(), heading: /^Tour Inc$/ },
  { name: "approvals", path: o("/approvals"), heading: /^Approvals$/ },
  { name: "approval-pending", path: () => o(`/approvals/${ids.pending}`)(), heading: /./ },
  { name: "approval-approved", path: () => o(`/approvals/${ids.approved}`)(), heading: /./ },
  { name: "actions", path: o("/actions"), heading: /^Actions$/ },
  { name: "action", path: () => o(`/actions/${ids.action}`)(), heading: /./ },
  { name: "receipts", path: o("/receipts"), heading: /^Receipts$/ },
  { name: "receipt", path: () => o(`/receipts/${ids.receipt}`)(), heading: /./ },
  { name: "observe", path: o("/observe"), heading: /Observe/ },
  { name: "observe-report", path: () => o(`/observe/${ids.window}`)(), heading: /refund-bot/ },
  { name: "agents", path: o("/agents"), heading: /^Agents$/ },
  { name: "agent", path: () => o(`/agents/${ids.agent}`)(), heading: /refund-bot/ },
  { name: "policies", path: o("/policies"), heading: /^Policies$/ },
  ...(["", "versions", "rollout", "simulation", "map", "evidence", "settings"] as const).map((section) => ({
    name: section ? `policy-${section}` : "policy",
    path: () => o(`/policies/${org.policyId}${section ? `/${section}` : ""}`)(),
    heading: /refunds/,
  })),
  { name: "mcp-servers", path: o("/mcp-servers"), heading: /MCP servers/ },
  { name: "mcp-server", path: () => o(`/mcp-servers/${ids.server}`)(), heading: /billing system/ },
  { name: "tools", path: o("/tools"), heading: /^Tools$/ },
  { name: "tool-new", path: o("/tools/new"), heading: /New tool/ },
  { name: "tool", path: () => o(`/tools/${ids.tool}`)(), heading: /refund_payment/ },
  { name: "webhooks", path: o("/webhooks"), heading: /^Webhooks$/ },
  { name: "webhook", path: () => o(`/webhooks/${ids.webhook}`)(), heading: /Webhook endpoint/ },
  { name: "principal", path: o("/principal"), heading: /principal/i },
  { name: "members", path: o("/members"), heading: /^Members$/ },
  { name: "management-keys", path: o("/keys"), heading: /^Management keys$/ },
  { name: "audit-log", path: o("/audit"), heading: /^Audit log$/ },
  { name: "billing", path: o("/billing"), heading: /^Plan and billing$/ },
  { name: "settings", path: o("/settings"), heading: /^Settings$/ },
  { name: "account", path: () => "/account", heading: /account/i },
  { name: "new-organization", path: () => "/orgs/new", heading: /organization/i },
  // Scalar's viewer titles the document it shows with an h1 of its own, after the page's.
  {
    name: "api-reference",
    path: () => "/api-reference",
    heading: /^API reference$/,
    h1s: 2,
    writesStyleAttributes: true,
  },
];

/** Approves a request on its page, confirming in the dialog when the page asks first. */
async function approveInBrowser(page: Page, approvalId: string): Promise<void> {
  await page.goto(`/orgs/${org.orgId}/approvals/${approvalId}`);
  await page.getByRole("button", { name: "Approve" }).click();
  const status = page.getByTestId("approval-status").getByText("approved");
  const dialog = page.getByRole("dialog");
  await status.or(dialog).first().waitFor();
  if (await dialog.isVisible()) await dialog.getByRole("button", { name: /Approve/ }).click();
  await status.waitFor();
}

beforeAll(async () => {
  world = await startDashboardWorld({ upstreams: true });
  dir = mkdtempSync(join(tmpdir(), "countersign-every-page-"));
  receiver = await startReceiver(world.upstreams!.ca, ok);
  org = await refundsOrganization(world, "Tour Inc");
  const { owner, orgId, policyId, gatewayKey } = org;
  const api = (method: string, path: string, body?: unknown) =>
    sessionRequest(owner, method, `/orgs/${orgId}${path}`, body);

  // A second version of the policy, in shadow: the rollout, versions and shadow report have content.
  const looser = {
    revision: 1,
    default_effect: "deny",
    rules: [
      {
        id: "large-refunds",
        effect: "require_approval",
        conditions: [{ field: "amount", op: "gt", threshold: "200", currency: "EUR" }],
        approvers: { roles: ["owner", "admin", "approver"], count: 1 },
      },
      {
        id: "small-refunds",
        effect: "allow",
        conditions: [{ field: "amount", op: "lte", threshold: "200", currency: "EUR" }],
      },
    ],
  };
  const v2 = await api("POST", `/policies/${policyId}/versions`, { document: looser, note: "raise the bar" });
  await api("PUT", `/policies/${policyId}/shadow`, { version_id: v2.version.id });

  // Calls after the shadow is set: one allowed, one held and approved here, one left waiting.
  const call = (order: string, amount: number) =>
    world.gateway.authorize(gatewayKey, {
      tool: "refund_payment",
      arguments: { amount, order },
      idempotency_key: order,
    });
  await call("T-1", 80);
  const held = (await call("T-2", 150)).body;
  ids.approved = held.approval_request_id;
  ids.pending = (await call("T-3", 900)).body.approval_request_id;
  await approveInBrowser(owner, ids.approved!);
  const authorized = (await call("T-2", 150)).body;
  expect(authorized).toMatchObject({ allowed: true, status: "authorized" });
  ids.receipt = authorized.receipt_id;
  ids.action = (await api("GET", `/approvals/${ids.approved}`)).approval.protected_action_id;
  const agent = (await api("GET", "/agents")).items[0];
  ids.agent = agent.id;
  ids.server = (await api("GET", "/mcp-servers")).items[0].id;
  ids.tool = (await api("GET", "/tools")).items[0].id;

  // An observe window with one relaxed call (test keys only), for the windows list and its report.
  await sessionRequest(owner, "PATCH", `/orgs/${orgId}`, { observe_max_hours: 2 });
  const testKey = (
    await api("POST", "/api-keys", {
      name: "tests",
      kind: "gateway",
      environment: "test",
      agent_id: agent.id,
    })
  ).secret;
  ids.window = (
    await api("POST", `/agents/${agent.id}/observe`, {
      hours: 1,
      confirmation: agent.name,
      reason: "trying the new refund flow",
    })
  ).observe_window.id;
  await world.gateway.authorize(testKey, {
    tool: "refund_payment",
    arguments: { amount: 700, order: "O-1" },
    idempotency_key: "O-1",
  });

  await api("POST", "/api-keys", { name: "ci-read", kind: "management", scopes: ["read"] });
  ids.webhook = (
    await api("POST", "/webhooks", {
      url: `${receiver.url}/hooks`,
      description: "the ledger",
      event_types: ["receipt.created", "action.denied"],
    })
  ).webhook.id;
  await api("POST", "/invitations", { email: newEmail("approver"), role: "approver" });

  visitor = (await world.person()).page;
  for (const page of [owner, visitor]) {
    await page.setViewportSize({ width: 1280, height: 800 });
    page.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text())) cspReports.push(`${page.url()}: ${m.text()}`);
    });
  }
}, 240_000);

afterAll(async () => {
  await world?.close();
  await receiver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Waits until what the page loads is shown: no "Loading…" left and no colour transition running. */
async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => !document.body.innerText.includes("Loading…"), undefined, {
    timeout: 40_000,
  });
  await page.waitForFunction(() =>
    document.getAnimations().every((a) => !(a instanceof CSSTransition) || a.playState === "finished"),
  );
}

describe("every page in both themes", () => {
  for (const stop of stops)
    it(
      `${stop.name}: no axe-core violation, its h1, no error, no CSP report`,
      { timeout: 120_000 },
      async () => {
        const page = stop.signedOut ? visitor : org.owner;
        cspReports.length = 0;
        await page.emulateMedia({ colorScheme: "light" });
        await page.goto(stop.path());
        for (const theme of ["light", "dark"] as const) {
          await page.emulateMedia({ colorScheme: theme });
          await page.locator(`html[data-mantine-color-scheme="${theme}"]`).waitFor({ state: "attached" });
          const h1 = page.locator("h1");
          await h1.first().waitFor();
          await settled(page);
          // Pictured before the checks, so the gallery shows a page that fails them too.
          await screenshot(page, `page-${stop.name}-${theme}`, dir);
          // Soft: a failure in the light scheme still lets the dark one be checked and pictured.
          expect.soft(await h1.count(), `one h1: ${await h1.allTextContents()}`).toBe(stop.h1s ?? 1);
          expect.soft(((await h1.first().textContent()) ?? "").trim()).toMatch(stop.heading);
          const errors = await page.locator("[role=alert][data-code]").allTextContents();
          if (stop.showsError) expect.soft(errors).toHaveLength(1);
          else expect.soft(errors, "no error shown").toEqual([]);
          // The list is in the message too, so a report that shows only messages names every rule and node.
          const found = (await violations(page)).map(
            (v) => `${v.id} (${v.impact}): ${v.targets.join(" | ")}`,
          );
          expect.soft(found, `${theme} theme of ${stop.path()}: ${found.join("; ")}`).toEqual([]);
        }
        const reports = stop.writesStyleAttributes
          ? cspReports.filter((r) => !/Applying inline style violates/.test(r))
          : cspReports;
        expect(reports, reports.join("; ")).toEqual([]);
      },
    );
});
