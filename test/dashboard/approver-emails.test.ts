/**
 * Issue 42 point 4 in Chromium: approvers are told by e-mail. An organization made through the
 * dashboard with an owner and an admin who may decide refunds over 100 EUR (both bound a key on
 * their account page), a second admin who turned the e-mails off there, and a viewer who is not an
 * approver. The agent's call held through the Gateway sends exactly one e-mail to each of the first
 * two (read from the SMTP catcher) and none to the others; no e-mail carries an argument's value;
 * the link, opened in the approver's browser, shows the waiting request. The rebuilt account page
 * passes axe in both themes, and unbinding a key there asks first.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { createLogger } from "../../core/src/server/index.js";
import { startApprovalNotices } from "../../api/src/approval-notices/worker.js";
import { smtpMailer } from "../../api/src/mail/smtp.js";
import type { Mailer } from "../../api/src/mail/mailer.js";
import { screenshot, startDashboardWorld, type DashboardWorld } from "../fixtures/dashboard.js";
import { violations } from "./axe.js";
import { joinAs, ownerOfNewOrganization } from "./members.js";
import { configureDecisionOnlyRefunds, sessionRequest } from "./setup-refunds.js";

let world: DashboardWorld;
let dir: string;
let mailer: Mailer;
let notices: { stop(): Promise<void> } | undefined;

beforeAll(async () => {
  world = await startDashboardWorld();
  dir = mkdtempSync(join(tmpdir(), "countersign-approver-emails-"));
  mailer = smtpMailer(world.smtp.url, "Countersign <no-reply@countersign.test>");
}, 120_000);
afterAll(async () => {
  await notices?.stop();
  mailer?.close?.();
  await world?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The person binds a key made in their browser on their account page, and reads their address there. */
async function bindKeyAndReadAddress(page: Page): Promise<string> {
  await page.goto("/account");
  await page.getByRole("button", { name: "Make and bind a key in this browser" }).click();
  await page.getByTestId("identities").getByText("in this browser").waitFor();
  return (await page.getByTestId("account-email").textContent())!.trim();
}

const approvalMails = (address: string) =>
  world.smtp.to(address).filter((m) => m.subject.startsWith("Approval needed"));

describe("approver e-mails", () => {
  it(
    "go once to each approver who may decide the held call, not to one who turned them off nor to a viewer, and their link opens the request",
    { timeout: 300_000 },
    async () => {
      const { owner, orgId } = await ownerOfNewOrganization(world, "Refund Desk", { principal: true });
      // What other suites make through their own pages: the refund tool and the policy, the agent and its key.
      const { policyId } = await configureDecisionOnlyRefunds(owner, orgId, ["owner", "admin"]);
      const agent = (
        await sessionRequest(owner, "POST", `/orgs/${orgId}/agents`, {
          name: "refund-bot",
          policy_id: policyId,
        })
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

      const admin = await joinAs(world, owner, orgId, "admin");
      const quietAdmin = await joinAs(world, owner, orgId, "admin");
      const viewer = await joinAs(world, owner, orgId, "viewer");
      const [ownerEmail, adminEmail, quietEmail, viewerEmail] = await Promise.all([
        bindKeyAndReadAddress(owner),
        bindKeyAndReadAddress(admin),
        bindKeyAndReadAddress(quietAdmin),
        bindKeyAndReadAddress(viewer),
      ]);

      // The second admin turns the e-mails off on their account page; the switch says it was saved.
      const toggle = quietAdmin.getByRole("switch", {
        name: "E-mail me when an approval request waits for me",
      });
      await expect(toggle.isChecked()).resolves.toBe(true);
      await toggle.click();
      await quietAdmin.getByRole("status").getByText("you get no e-mail about approval requests").waitFor();
      await expect(toggle.isChecked()).resolves.toBe(false);
      await screenshot(quietAdmin, "account-approver-emails-off", dir);
      // The account page as rebuilt (keys bound, the switch, the saved notice): no axe violation in either theme.
      for (const colorScheme of ["light", "dark"] as const) {
        await quietAdmin.emulateMedia({ colorScheme });
        expect(await violations(quietAdmin)).toEqual([]);
      }
      // Still off after a reload: the choice is the account's, not the page's.
      await quietAdmin.reload();
      await expect
        .poll(() => quietAdmin.getByRole("switch", { name: /E-mail me when/ }).isChecked(), {
          timeout: 20_000,
        })
        .toBe(false);

      // The api processes' worker (started by startApi in production) and the agent's held call.
      notices = startApprovalNotices({
        pool: world.db.pool,
        mailer,
        dashboardOrigin: world.origin,
        log: createLogger("api", "silent"),
        intervalMs: 200,
      });
      const held = await world.gateway.authorize(gatewayKey, {
        tool: "refund_payment",
        arguments: { amount: 640, order: "ORD-7731-PRIVATE", customer_note: "leave at the back door" },
        idempotency_key: "held-1",
      });
      expect(held.body).toMatchObject({ status: "approval_pending" });
      const approvalId: string = held.body.approval_request_id;

      await expect.poll(() => approvalMails(ownerEmail).length, { timeout: 30_000 }).toBe(1);
      await expect.poll(() => approvalMails(adminEmail).length, { timeout: 30_000 }).toBe(1);
      // Stopping waits for the pass under way: every e-mail of this request is sent by now.
      await notices.stop();
      notices = undefined;
      expect(approvalMails(ownerEmail)).toHaveLength(1);
      expect(approvalMails(adminEmail)).toHaveLength(1);
      expect(approvalMails(quietEmail)).toHaveLength(0);
      expect(approvalMails(viewerEmail)).toHaveLength(0);

      const link = `${world.origin}/orgs/${orgId}/approvals/${approvalId}`;
      for (const mail of [...approvalMails(ownerEmail), ...approvalMails(adminEmail)]) {
        expect(mail.subject).toBe("Approval needed in Refund Desk: refund-bot wants to call refund_payment");
        expect(mail.text).toContain("Agent: refund-bot");
        expect(mail.text).toContain("Tool: refund_payment");
        expect(mail.text).toContain("Amount: 640 EUR");
        expect(mail.text).toMatch(/Expires: \d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
        expect(mail.text).toContain(link);
        for (const value of ["ORD-7731-PRIVATE", "leave at the back door", gatewayKey])
          expect(mail.raw).not.toContain(value);
      }

      // The admin opens the link from the e-mail in their browser: the waiting request.
      const mailed = /http:\/\/\S+\/approvals\/[0-9a-f-]+/.exec(approvalMails(adminEmail)[0]!.text)![0];
      await admin.goto(mailed);
      await expect
        .poll(() => admin.getByTestId("approval-status").textContent(), { timeout: 20_000 })
        .toBe("pending");
      await admin.getByText("refund-bot").first().waitFor();
      expect(new URL(admin.url()).pathname).toBe(`/orgs/${orgId}/approvals/${approvalId}`);
      await screenshot(admin, "approval-from-email", dir);

      // Unbinding a key asks first, leading with what it ends; confirmed, the key is gone.
      await viewer.goto("/account");
      await viewer.getByTestId("identities").getByRole("button", { name: "Unbind" }).click();
      const dialog = viewer.getByRole("dialog");
      await dialog.getByText("Approvals can no longer be signed with this key").waitFor();
      await dialog.getByRole("button", { name: "Unbind" }).click();
      await viewer.getByTestId("no-identity").waitFor();
    },
  );
});
