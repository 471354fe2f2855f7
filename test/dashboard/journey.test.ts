/**
 * A new organization's journey, start to finish, in Chromium against the real Cloud API (serving
 * the dashboard), Gateway, PostgreSQL and SMTP server: sign-up through the mailed link, the
 * organization and its principal with the backup downloaded, an agent with a gateway key and a
 * delegation signed in the browser, a held POST /v1/authorize approved by a second member invited
 * by e-mail in a second browser, the repeated request authorized, and the receipt verified in the
 * browser and by `countersign verify` on the downloaded file.
 */
import { createPrivateKey } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { sha256Digest } from "../../protocol/src/canonical/index.js";
import { nodeSigner } from "../../protocol/src/evidence/index.js";
import { runCountersign } from "../fixtures/cli.js";
import {
  mailedLink,
  newEmail,
  screenshot,
  signUpInBrowser,
  startDashboardWorld,
  type DashboardWorld,
} from "../fixtures/dashboard.js";
import { configureDecisionOnlyRefunds } from "./setup-refunds.js";

let world: DashboardWorld;
let dir: string;
beforeAll(async () => {
  world = await startDashboardWorld();
  dir = mkdtempSync(join(tmpdir(), "countersign-dashboard-"));
}, 120_000);
afterAll(async () => {
  await world?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const shot = (page: Page, name: string) => screenshot(page, name, dir);

it(
  "walks a new organization from sign-up to a receipt verified in the browser and by the CLI",
  { timeout: 240_000 },
  async () => {
    // 1. Sign up, and verify through the link in the received e-mail.
    const owner = await world.person();
    const ownerEmail = newEmail("founder");
    await signUpInBrowser(world, owner.page, ownerEmail, {
      screenshot: async (n) => {
        await shot(owner.page, n);
      },
    });
    await owner.page.getByRole("heading", { name: "Create an organization" }).waitFor();

    // 2. Organization and principal; the backup must be downloaded before it can be registered.
    await owner.page.getByLabel("Name").fill("Refunds Inc");
    await owner.page.getByRole("button", { name: "Create" }).click();
    await owner.page.getByRole("button", { name: "Create the principal" }).click();
    const register = owner.page.getByRole("button", { name: "Register the principal" });
    await expect(register.isDisabled()).resolves.toBe(true);
    await shot(owner.page, "principal-backup");
    const [backup] = await Promise.all([
      owner.page.waitForEvent("download"),
      owner.page.getByRole("link", { name: "Download the key backup" }).click(),
    ]);
    const pemFile = join(dir, backup.suggestedFilename());
    await backup.saveAs(pemFile);
    const pem = readFileSync(pemFile, "utf8");
    expect(pem).toMatch(/^-----BEGIN PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+-----END PRIVATE KEY-----\n$/);
    await register.click();
    const principalKid = await owner.page.getByTestId("principal-kid").textContent();
    expect(principalKid).toMatch(/^kid_[0-9a-f]{64}$/);
    await owner.page.getByTestId("principal-held").waitFor();
    const orgId = new URL(owner.page.url()).pathname.split("/")[2]!;
    // The backup is what the operator's Organization Secret holds: node:crypto reads it as the same key.
    expect(nodeSigner(createPrivateKey(pem)).kid).toBe(principalKid);

    // The decision-only tool and the policy holding refunds over 100 EUR (the policy editor is not part of this page set).
    const { policyName } = await configureDecisionOnlyRefunds(owner.page, orgId);

    // 3. Agent with its policy, a gateway key shown once, a delegation signed in the browser.
    await owner.page.goto(`/orgs/${orgId}/agents`);
    await owner.page.getByLabel("Name").fill("refund-bot");
    await owner.page.getByLabel("Policy").selectOption({ label: policyName });
    await owner.page.getByRole("button", { name: "Create agent" }).click();
    await owner.page.getByRole("heading", { name: "refund-bot" }).waitFor();
    await owner.page.getByLabel("Key name").fill("refund-bot live");
    await owner.page.getByRole("button", { name: "Create gateway key" }).click();
    const gatewayKey = (await owner.page.getByTestId("secret").textContent())!;
    expect(gatewayKey).toMatch(/^svc_live_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
    await owner.page.getByLabel(/^Permissions/).fill("payments.*");
    await owner.page.getByRole("button", { name: "Sign and grant" }).click();
    await owner.page.getByTestId("delegations").getByText("payments.*").waitFor();
    await shot(owner.page, "agent");
    // The dry run shows exactly what the agent would receive, recording nothing.
    await owner.page.getByLabel("Tool").fill("refund_payment");
    await owner.page.getByLabel("Arguments (JSON)").fill('{"amount": 40, "order": "A-0999"}');
    await owner.page.getByRole("button", { name: "Dry run" }).click();
    const wouldReceive = JSON.parse((await owner.page.getByTestId("dry-run-receives").textContent())!);
    expect(wouldReceive).toMatchObject({ allowed: true, status: "authorized", protected_action_id: null });
    await shot(owner.page, "dry-run");

    // 4. A second member, invited by e-mail, joins in a second browser and binds a personal key made there.
    const approverEmail = newEmail("approver");
    await owner.page.goto(`/orgs/${orgId}/members`);
    await owner.page.getByLabel("E-mail").fill(approverEmail);
    await owner.page.locator("select[name=role]").selectOption("approver");
    await owner.page.getByRole("button", { name: "Send invitation" }).click();
    await owner.page.getByText(`${approverEmail} as approver`).waitFor();
    await shot(owner.page, "members");
    const invitation = await mailedLink(world, approverEmail, "invitations/accept");

    const approver = await world.person();
    await signUpInBrowser(world, approver.page, approverEmail);
    await approver.page.goto(invitation);
    await approver.page.getByRole("button", { name: "Accept the invitation" }).click();
    await approver.page.getByTestId("role").getByText("approver").waitFor();
    await approver.page.goto("/account");
    await approver.page.getByRole("button", { name: "Make and bind a key in this browser" }).click();
    await approver.page.getByTestId("identities").getByText("in this browser").waitFor();
    await shot(approver.page, "account");

    // The agent's request is held for approval, and the approver decides it with that key.
    const call = {
      tool: "refund_payment",
      arguments: { amount: 250, order: "A-1001" },
      idempotency_key: "refund-A-1001",
    };
    const held = await world.gateway.authorize(gatewayKey, call);
    expect(held.body).toMatchObject({ allowed: false, status: "approval_pending" });
    const approvalId = held.body.approval_request_id as string;

    await approver.page.goto(`/orgs/${orgId}/approvals`);
    await approver.page.getByTestId("approval-queue").waitFor();
    await shot(approver.page, "approvals");
    await approver.page.goto(`/orgs/${orgId}/approvals/${approvalId}`);
    await approver.page.getByTestId("call-details").getByText("payments.refund").waitFor();
    await expect(approver.page.getByTestId("call-details").textContent()).resolves.toContain("250 EUR");
    await shot(approver.page, "approval");
    await approver.page.getByRole("button", { name: "Approve" }).click();
    await approver.page.getByTestId("approval-status").getByText("approved").waitFor();

    // 5. The agent's repeated request is authorized, with a receipt over the approver's signed APPROVAL.
    const authorized = await world.gateway.authorize(gatewayKey, call);
    expect(authorized.body).toMatchObject({
      allowed: true,
      status: "authorized",
      approval_request_id: approvalId,
    });
    const receiptId = authorized.body.receipt_id as string;

    // 6. The receipt verified in the browser (offline) and by the CLI on the downloaded file.
    await owner.page.goto(`/orgs/${orgId}/receipts/${receiptId}`);
    await owner.page.getByTestId("chain").getByText("APPROVAL").waitFor();
    await owner.page.getByRole("button", { name: "Fetch the bundle" }).click();
    const requestsBefore: string[] = [];
    owner.page.on("request", (r) => requestsBefore.push(r.url()));
    await owner.page.getByRole("button", { name: "Verify in this browser" }).click();
    const local = owner.page.getByTestId("browser-verification");
    await expect(local.getAttribute("data-valid")).resolves.toBe("true");
    expect(requestsBefore).toEqual([]); // verified with no call to the server
    await shot(owner.page, "receipt");
    const [bundle] = await Promise.all([
      owner.page.waitForEvent("download"),
      owner.page.getByRole("link", { name: /^Download receipt-/ }).click(),
    ]);
    const bundleFile = join(dir, bundle.suggestedFilename());
    await bundle.saveAs(bundleFile);
    expect(bundle.suggestedFilename()).toMatch(/^receipt-ko_[0-9a-f]{64}\.svcbundle$/);
    const recorded = await owner.page
      .locator("dd code")
      .filter({ hasText: /^sha256:/ })
      .first()
      .textContent();
    expect(sha256Digest(readFileSync(bundleFile))).toBe(recorded);
    const run = await runCountersign(["verify", bundleFile]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^VALID/);
    expect(run.stdout).toContain("granted");
  },
);
