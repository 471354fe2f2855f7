/**
 * Approvals, roles and cancellation in Chromium against the real services: what a viewer and an
 * approver are shown, the refusals of a decision (missing identity, ALREADY_DECIDED, an expired
 * request, POLICY_VERSION_REPLACED), and an action cancelled with the principal key whose closure
 * receipt verifies in the browser; a request decided by keyboard alone. Live: a call held at the
 * Gateway shows in the navigation's count and the open queue without a reload, and the action's page
 * lists its transitions in order with the approver's name.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import {
  mailedLink,
  newEmail,
  screenshot,
  signInInBrowser,
  signUpInBrowser,
  startDashboardWorld,
  type DashboardWorld,
} from "../fixtures/dashboard.js";
import { configureDecisionOnlyRefunds, sessionRequest } from "./setup-refunds.js";
import { violations } from "./axe.js";

let world: DashboardWorld;
let dir: string;
let orgId: string;
let policyId: string;
let gatewayKey: string;
let owner: Page;
let approver: Page;
let viewer: Page;
let approverEmail: string;

async function joinAs(role: "approver" | "viewer", email = newEmail(role)): Promise<Page> {
  await sessionRequest(owner, "POST", `/orgs/${orgId}/invitations`, { email, role });
  const link = await mailedLink(world, email, "invitations/accept");
  const { page } = await world.person();
  await signUpInBrowser(world, page, email);
  await page.goto(link);
  await page.getByRole("button", { name: "Accept the invitation" }).click();
  await page.getByTestId("role").getByText(role).waitFor();
  return page;
}

async function bindKey(page: Page) {
  await page.goto("/account");
  await page.getByRole("button", { name: "Make and bind a key in this browser" }).click();
  await page.getByTestId("identities").getByText("in this browser").waitFor();
}

/** A refund over 100 EUR: held for approval by owners, admins and approvers. */
async function heldRequest(order: string): Promise<{ approvalId: string; actionId: string }> {
  const held = await world.gateway.authorize(gatewayKey, {
    tool: "refund_payment",
    arguments: { amount: 500, order },
    idempotency_key: order,
  });
  expect(held.body).toMatchObject({ allowed: false, status: "approval_pending" });
  return { approvalId: held.body.approval_request_id, actionId: held.body.protected_action_id };
}

beforeAll(async () => {
  world = await startDashboardWorld();
  dir = mkdtempSync(join(tmpdir(), "countersign-approvals-"));
  owner = (await world.person()).page;
  await signUpInBrowser(world, owner, newEmail("owner"));
  await owner.getByLabel("Name").fill("Approvals Inc");
  await owner.getByRole("button", { name: "Create" }).click();
  await owner.getByRole("button", { name: "Create the principal" }).click();
  await owner.getByRole("link", { name: "Download the key backup" }).click();
  await owner.getByRole("button", { name: "Register the principal" }).click();
  await owner.getByTestId("principal-held").waitFor();
  orgId = new URL(owner.url()).pathname.split("/")[2]!;
  ({ policyId } = await configureDecisionOnlyRefunds(owner, orgId));
  const agent = (
    await sessionRequest(owner, "POST", `/orgs/${orgId}/agents`, { name: "refund-bot", policy_id: policyId })
  ).agent;
  gatewayKey = (
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
  await bindKey(owner);
  approverEmail = newEmail("approver");
  approver = await joinAs("approver", approverEmail);
  await bindKey(approver);
  viewer = await joinAs("viewer");
}, 240_000);
afterAll(async () => {
  await world?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("roles", () => {
  it("shows a viewer no approve button and an approver no admin pages", { timeout: 60_000 }, async () => {
    const { approvalId } = await heldRequest("R-roles");

    await viewer.goto(`/orgs/${orgId}/approvals/${approvalId}`);
    await viewer.getByText("Your role does not decide approvals.").waitFor();
    await screenshot(viewer, "approval-viewer", dir);
    await expect(viewer.getByRole("button", { name: "Approve" }).count()).resolves.toBe(0);
    const viewerNav = viewer.getByRole("navigation", { name: "Organization" });
    await expect(viewerNav.getByRole("link", { name: "Approvals" }).count()).resolves.toBe(0);

    await approver.goto(`/orgs/${orgId}`);
    const approverNav = approver.getByRole("navigation", { name: "Organization" });
    await approverNav.getByRole("link", { name: "Approvals" }).waitFor();
    for (const admin of ["Members", "Settings"])
      await expect(approverNav.getByRole("link", { name: admin }).count()).resolves.toBe(0);
    // Typed in by hand, an admin page shows the service's refusal and nothing it may not see.
    await approver.goto(`/orgs/${orgId}/members`);
    await approver.locator('[role=alert][data-code="FORBIDDEN"]').first().waitFor();
    await approver.goto(`/orgs/${orgId}/agents`);
    await approver.getByRole("link", { name: "refund-bot" }).waitFor();
    await expect(approver.getByRole("button", { name: "Create agent" }).count()).resolves.toBe(0);
  });
});

describe("organization", () => {
  it(
    "saves settings an owner changes, and a role change shows at once in the member's navigation",
    { timeout: 60_000 },
    async () => {
      await owner.goto(`/orgs/${orgId}/settings`);
      await owner.getByLabel(/^Approval lifetime/).fill("59");
      await owner.getByRole("button", { name: "Save" }).click();
      await owner.locator('[role=alert][data-code="VALIDATION_FAILED"]').waitFor();
      expect((await sessionRequest(owner, "GET", `/orgs/${orgId}`)).organization.approval_ttl_seconds).toBe(
        86400,
      );
      await owner.getByLabel(/^Approval lifetime/).fill("7200");
      await owner.getByRole("button", { name: "Save" }).click();
      await expect
        .poll(
          async () =>
            (await sessionRequest(owner, "GET", `/orgs/${orgId}`)).organization.approval_ttl_seconds,
        )
        .toBe(7200);

      // The viewer made approver and back: their navigation follows the role the service re-reads.
      await owner.goto(`/orgs/${orgId}/members`);
      const viewerEmail = await viewer.getByRole("link", { name: /@example\.test$/ }).textContent();
      await owner.getByLabel(`Role of ${viewerEmail}`).selectOption("approver");
      await expect
        .poll(
          async () =>
            (await sessionRequest(owner, "GET", `/orgs/${orgId}/members`)).items.find(
              (m: { email: string }) => m.email === viewerEmail,
            )?.role,
        )
        .toBe("approver");
      await viewer.goto(`/orgs/${orgId}`);
      await viewer
        .getByRole("navigation", { name: "Organization" })
        .getByRole("link", { name: "Approvals" })
        .waitFor();
      await owner.getByLabel(`Role of ${viewerEmail}`).selectOption("viewer");
      await expect
        .poll(
          async () =>
            (await sessionRequest(owner, "GET", `/orgs/${orgId}/members`)).items.find(
              (m: { email: string }) => m.email === viewerEmail,
            )?.role,
        )
        .toBe("viewer");
    },
  );
});

describe("keyboard", () => {
  it(
    "decides a request by keyboard alone: from the queue to the request with Enter, to Approve with Tab, Enter",
    { timeout: 60_000 },
    async () => {
      const { approvalId } = await heldRequest("R-keyboard");
      await approver.goto(`/orgs/${orgId}/approvals`);
      const row = approver.locator(`a[href$="/approvals/${approvalId}"]`);
      await row.focus();
      await approver.keyboard.press("Enter");
      await approver.getByTestId("call-details").getByText("payments.refund").waitFor();
      expect(new URL(approver.url()).pathname).toBe(`/orgs/${orgId}/approvals/${approvalId}`);
      // From the top of the page, Tab by Tab: the skip link, the navigation, then the decision.
      await approver.locator("body").focus();
      const focusedText = () =>
        approver.evaluate(() => (document.activeElement as HTMLElement | null)?.innerText?.trim() ?? "");
      let presses = 0;
      while ((await focusedText()) !== "Approve" && presses < 60) {
        await approver.keyboard.press("Tab");
        presses++;
      }
      expect(await focusedText()).toBe("Approve");
      await approver.keyboard.press("Enter");
      await approver.getByTestId("approval-status").getByText("approved").waitFor();
      expect(
        (await sessionRequest(owner, "GET", `/orgs/${orgId}/approvals/${approvalId}`)).approval.status,
      ).toBe("approved");
    },
  );
});

describe("live approvals and the action's timeline", () => {
  it(
    "counts a new held call in the navigation and lists it without a reload; the action's timeline names the approver",
    { timeout: 120_000 },
    async () => {
      const nav = approver.getByRole("navigation", { name: "Organization" });
      const badge = nav.getByTestId("waiting-count");
      const waiting = async () =>
        (await badge.count()) ? Number((await badge.textContent())!.split(" ")[0]) : 0;
      const first = await heldRequest("R-live-1");
      await approver.goto(`/orgs/${orgId}`);
      // Loaded: the request just held is one the approver (key bound) can decide.
      await badge.waitFor();
      const before = await waiting();
      expect(before).toBeGreaterThan(0);
      // The accessible name says what the figure is.
      await nav.getByRole("link", { name: `Approvals ${before} waiting` }).waitFor();
      // A mark on the window: a reload would lose it.
      await approver.evaluate(() => ((window as unknown as { mark: string }).mark = "no reload"));

      // The agent acts: a second call held through the Gateway. The overview's count follows.
      const { approvalId, actionId } = await heldRequest("R-live-2");
      await expect.poll(waiting, { timeout: 20_000 }).toBe(before + 1);

      // To the list through the navigation (no reload either): the new request is there.
      await nav.getByRole("link", { name: /^Approvals/ }).click();
      const row = approver.getByTestId("approval-queue").locator(`a[href$="/approvals/${approvalId}"]`);
      await row.waitFor();
      expect(await approver.evaluate(() => (window as unknown as { mark?: string }).mark)).toBe("no reload");

      // Decided from its page: the consequence is stated next to the two buttons.
      await row.click();
      await approver
        .getByTestId("decision-consequence")
        .getByText("refuses it for good", { exact: false })
        .waitFor();
      await approver.getByRole("button", { name: "Approve" }).click();
      await approver.getByTestId("approval-status").getByText("approved").waitFor();
      await expect.poll(waiting, { timeout: 20_000 }).toBe(before);
      expect(await approver.evaluate(() => (window as unknown as { mark?: string }).mark)).toBe("no reload");

      // The agent asks again and is authorized (its receipt names the approver's signed identity).
      const authorized = await world.gateway.authorize(gatewayKey, {
        tool: "refund_payment",
        arguments: { amount: 500, order: "R-live-2" },
        idempotency_key: "R-live-2",
      });
      expect(authorized.body).toMatchObject({ allowed: true, status: "authorized" });

      // The approver follows the request's link to the action: its transitions in order, "you" among them.
      await approver.getByRole("link", { name: "Its state and timeline" }).click();
      const steps = approver.getByTestId("action-timeline").getByRole("listitem");
      await expect
        .poll(() => steps.allTextContents(), { timeout: 20_000 })
        .toEqual([
          expect.stringMatching(/^Decided: approval required/),
          expect.stringMatching(/^Approval requested/),
          expect.stringMatching(
            new RegExp(`^Approved by you \\(${approverEmail.replace(/[.+]/g, "\\$&")}\\)`),
          ),
          expect.stringMatching(/^Receipt issued: authorization, granted/),
        ]);
      await approver.getByTestId("action-status").getByText("authorized").waitFor();

      // The owner reads the same timeline with the approver named by their signed identity.
      await owner.goto(`/orgs/${orgId}/actions/${actionId}`);
      await owner
        .getByTestId("action-timeline")
        .getByText(`Approved by ${approverEmail}`, { exact: true })
        .waitFor();
      // Both colour schemes pass axe on the page with its timeline.
      for (const colorScheme of ["light", "dark"] as const) {
        await owner.emulateMedia({ colorScheme });
        await owner.getByTestId("action-timeline").waitFor();
        expect((await violations(owner)).map((v) => `${v.id}: ${v.targets.join(" | ")}`)).toEqual([]);
        await screenshot(owner, colorScheme === "light" ? "action-timeline" : "action-timeline-dark", dir);
      }
      await owner.emulateMedia({ colorScheme: "light" });
      // The request that was held first is still waiting: the count never counted the decided one.
      expect(
        (await sessionRequest(owner, "GET", `/orgs/${orgId}/approvals/${first.approvalId}`)).approval.status,
      ).toBe("pending");
    },
  );

  it("counts only the current organization's requests", { timeout: 60_000 }, async () => {
    // The owner can decide requests waiting in Approvals Inc (R-live-1 at least).
    await heldRequest("R-tenancy");
    await owner.goto(`/orgs/${orgId}`);
    const nav = owner.getByRole("navigation", { name: "Organization" });
    await nav.getByTestId("waiting-count").waitFor();
    // A second organization of the same person, made and entered through the header's switcher.
    await owner.getByRole("combobox", { name: "Organization" }).selectOption({ label: "New organization…" });
    await owner.getByLabel("Name").fill("Elsewhere Ltd");
    await owner.getByRole("button", { name: "Create" }).click();
    await owner.waitForURL(/\/orgs\/[0-9a-f-]{36}\/principal$/);
    const otherId = new URL(owner.url()).pathname.split("/")[2]!;
    expect(otherId).not.toBe(orgId);
    await nav.getByRole("link", { name: /^Approvals/ }).click();
    // Its queue loaded and empty, the figure is absent: Approvals Inc's requests are not counted here.
    await owner.getByTestId("queue-empty").waitFor();
    await expect(nav.getByTestId("waiting-count").count()).resolves.toBe(0);
    await expect(nav.getByRole("link", { name: "Approvals", exact: true }).count()).resolves.toBe(1);
    // Back in Approvals Inc, they are.
    await owner
      .getByRole("combobox", { name: "Organization" })
      .selectOption({ label: "Approvals Inc (owner)" });
    await owner.waitForURL(new RegExp(`/orgs/${orgId}$`));
    await nav.getByTestId("waiting-count").waitFor();
  });
});

describe("deciding", () => {
  it("shows a new request in the open queue without a reload", { timeout: 60_000 }, async () => {
    await approver.goto(`/orgs/${orgId}/approvals`);
    // Loaded first (a table, or the empty queue's sentence), so the count below is the queue's.
    await approver.getByTestId("approval-queue").or(approver.getByTestId("queue-empty")).waitFor();
    const rows = approver.getByTestId("approval-queue").locator("tbody tr");
    const before = await rows.count();
    await heldRequest("R-queue");
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(before + 1);
  });

  it(
    "refuses to sign without a key of this browser among the approvers, sending nothing",
    { timeout: 60_000 },
    async () => {
      const { approvalId } = await heldRequest("R-missing");
      // The approver in another browser, signed in but holding none of the bound keys.
      const elsewhere = (await world.person()).page;
      await signInInBrowser(elsewhere, approverEmail);
      await elsewhere.goto(`/orgs/${orgId}/approvals/${approvalId}`);
      await elsewhere.locator('[data-code="IDENTITY_MISSING"]').waitFor();
      const posted: string[] = [];
      elsewhere.on("request", (r) => r.method() === "POST" && posted.push(r.url()));
      await elsewhere.getByRole("button", { name: "Approve" }).click();
      await elsewhere.locator('[role=alert][data-code="IDENTITY_MISSING"]').waitFor();
      expect(posted).toEqual([]);
      expect(
        (await sessionRequest(owner, "GET", `/orgs/${orgId}/approvals/${approvalId}`)).approval.status,
      ).toBe("pending");
    },
  );

  it(
    "answers ALREADY_DECIDED to the second of two approvers deciding at once",
    { timeout: 60_000 },
    async () => {
      const { approvalId } = await heldRequest("R-twice");
      await owner.goto(`/orgs/${orgId}/approvals/${approvalId}`);
      await approver.goto(`/orgs/${orgId}/approvals/${approvalId}`);
      await owner.getByRole("button", { name: "Approve" }).waitFor();
      await approver.getByRole("button", { name: "Reject" }).waitFor();
      await owner.getByRole("button", { name: "Approve" }).click();
      await owner.getByTestId("approval-status").getByText("approved").waitFor();
      await approver.getByRole("button", { name: "Reject" }).click();
      await approver.locator('[role=alert][data-code="ALREADY_DECIDED"]').waitFor();
      await approver.getByTestId("approval-status").getByText("approved").waitFor();
      expect(
        (await sessionRequest(owner, "GET", `/orgs/${orgId}/approvals/${approvalId}`)).approval.status,
      ).toBe("approved");
    },
  );

  it("shows an expired request as expired, with nothing to click", { timeout: 60_000 }, async () => {
    const { approvalId } = await heldRequest("R-expired");
    // Time passes past the request's expiry (the shortest lifetime is a minute).
    await world.db.pool.query(
      "update approval_requests set expires_at = now() - interval '1 second' where id = $1",
      [approvalId],
    );
    await approver.goto(`/orgs/${orgId}/approvals/${approvalId}`);
    await approver.locator('[data-code="EXPIRED"], [role=status]:has-text("expired")').first().waitFor();
    await expect(approver.getByRole("button", { name: "Approve" }).count()).resolves.toBe(0);
  });

  it(
    "cancels an action with the principal key; its closure receipt verifies in the browser",
    { timeout: 90_000 },
    async () => {
      const { actionId } = await heldRequest("R-cancel");
      await owner.goto(`/orgs/${orgId}/actions/${actionId}`);
      await owner.getByRole("button", { name: /^Cancel this action/ }).click();
      // The dialog leads with the consequence; nothing is cancelled until its button is pressed.
      const dialog = owner.getByRole("dialog", { name: "Cancel this action?" });
      await dialog.getByText("This cannot be undone.", { exact: false }).waitFor();
      expect((await sessionRequest(owner, "GET", `/orgs/${orgId}/actions/${actionId}`)).action.status).toBe(
        "pending_approval",
      );
      await dialog.getByRole("button", { name: "Cancel the action" }).click();
      await owner.getByTestId("action-status").getByText("cancelled").waitFor();
      await screenshot(owner, "action-cancelled", dir);
      // The timeline ends with the principal's cancellation and its closure receipt.
      await expect
        .poll(() => owner.getByTestId("action-timeline").getByRole("listitem").allTextContents())
        .toEqual([
          expect.stringMatching(/^Decided: approval required/),
          expect.stringMatching(/^Approval requested/),
          expect.stringMatching(/^Cancelled by /),
          expect.stringMatching(/^Receipt issued: closure, final/),
        ]);
      await owner.getByRole("link", { name: /^[0-9a-f-]{36}$/ }).click();
      await owner.getByTestId("chain").getByText("CANCELLATION").waitFor();
      await expect(owner.getByTestId("chain").locator("li").allTextContents()).resolves.toEqual([
        expect.stringMatching(/^TASK/),
        expect.stringMatching(/^CANCELLATION/),
      ]);
      await owner.getByRole("heading", { name: "Receipt: closure, final" }).waitFor();
      await owner.getByRole("button", { name: "Fetch the bundle" }).click();
      await owner.getByRole("button", { name: "Verify in this browser" }).click();
      await expect(owner.getByTestId("browser-verification").getAttribute("data-valid")).resolves.toBe(
        "true",
      );
      // The agent's repeated request now reads cancelled.
      const again = await world.gateway.authorize(gatewayKey, {
        tool: "refund_payment",
        arguments: { amount: 500, order: "R-cancel" },
        idempotency_key: "R-cancel",
      });
      expect(again.body).toMatchObject({ allowed: false, status: "cancelled" });
    },
  );

  it(
    "answers POLICY_VERSION_REPLACED when an emergency stop closed the request meanwhile",
    { timeout: 60_000 },
    async () => {
      const { approvalId } = await heldRequest("R-replaced");
      await approver.goto(`/orgs/${orgId}/approvals/${approvalId}`);
      await approver.getByRole("button", { name: "Approve" }).waitFor();
      await sessionRequest(owner, "POST", `/orgs/${orgId}/policies/${policyId}/emergency`, {});
      await approver.getByRole("button", { name: "Approve" }).click();
      await approver.locator('[role=alert][data-code="POLICY_VERSION_REPLACED"]').waitFor();
      expect(
        (await sessionRequest(owner, "GET", `/orgs/${orgId}/approvals/${approvalId}`)).approval.status,
      ).not.toBe("approved");
    },
  );
});
