/**
 * The owner buys a plan and opens the portal in the dashboard, in Chromium, with billing
 * configured against stripe-mock (docs/billing.md). Stripe's own pages (Checkout, the portal) are
 * on Stripe's origins, which this machine cannot reach: the browser's navigation there is answered
 * by a stand-in page, and what the person would do on it arrives as the event Stripe sends, signed
 * with the SDK's helper.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import {
  newEmail,
  signUpInBrowser,
  startDashboardWorld,
  type DashboardWorld,
} from "../fixtures/dashboard.js";
import { startStripeMock, type StripeMock } from "../stripe-mock/index.js";
import { SECRET_KEY, StripeSide, WEBHOOK_SECRET, prices } from "./stripe-side.js";

let mock: StripeMock;
let world: DashboardWorld;
let side: StripeSide;
let owner: Page;
let orgId: string;

beforeAll(async () => {
  mock = await startStripeMock();
  world = await startDashboardWorld({
    defaultPlan: "developer",
    billing: { secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET, prices, apiUrl: mock.url },
  });
  side = new StripeSide(mock.url, world.origin);
  owner = (await world.person()).page;
  // Stripe's pages, as far as this machine can go: the browser arrives and sees a stand-in.
  await owner.route(/^https:\/\/[^/]*stripe\.(com|me)\//, (route) =>
    route.fulfill({ status: 200, contentType: "text/html", body: "<title>Stripe</title><p>Stripe</p>" }),
  );
  await signUpInBrowser(world, owner, newEmail("buyer"));
  await owner.getByLabel("Name").fill("Buyer Inc");
  await owner.getByRole("button", { name: "Create" }).click();
  await owner.waitForURL(/\/orgs\/[0-9a-f-]{36}/);
  orgId = new URL(owner.url()).pathname.split("/")[2]!;
}, 120_000);
afterAll(async () => {
  await world?.close();
  await mock?.stop();
});

describe("plan and billing in the dashboard", () => {
  it(
    "buys a plan through Checkout, shows it once Stripe's event arrives, and opens the portal",
    { timeout: 90_000 },
    async () => {
      await owner.goto(`/orgs/${orgId}/billing`);
      await expect(owner.getByTestId("plan").textContent()).resolves.toBe("developer");
      await expect(owner.getByTestId("billing-status").textContent()).resolves.toContain(
        "configured: plans are bought",
      );

      await owner.getByRole("button", { name: "Buy the startup plan" }).click();
      await owner.waitForURL(/^https:\/\/checkout\.stripe\.com\//);

      // Paid on Stripe's page: Stripe sends the event, then sends the person back.
      const { rows } = await world.db.pool.query(
        `select c.session_id, b.customer_id from billing_checkouts c
         join billing_customers b using (organization_id) where c.organization_id = $1`,
        [orgId],
      );
      expect(rows).toHaveLength(1);
      const paid = await side.push(
        side.event(
          "checkout.session.completed",
          await side.checkoutSession(rows[0].session_id, rows[0].customer_id, "sub_dashboard_1"),
        ),
      );
      expect(paid.status).toBe(200);
      await owner.goto(`${world.origin}/orgs/${orgId}/billing?checkout=complete`);
      await expect(owner.getByTestId("plan").textContent()).resolves.toBe("startup");
      await expect(owner.getByTestId("subscription").textContent()).resolves.toContain("startup, active");
      await expect(owner.getByRole("button", { name: /^Buy the/ }).count()).resolves.toBe(0);

      await owner.getByRole("button", { name: "Manage the subscription" }).click();
      await owner.waitForURL(/stripe\.me\//);
    },
  );

  it(
    "shows the refusal when Stripe cannot be reached, and stays on the page",
    { timeout: 60_000 },
    async () => {
      await owner.goto(`${world.origin}/orgs/${orgId}/billing`);
      await mock.stop();
      await owner.getByRole("button", { name: "Manage the subscription" }).click();
      const refusal = owner.getByTestId("refusal");
      await refusal.waitFor();
      await expect(refusal.textContent()).resolves.toContain("unreachable");
      expect(new URL(owner.url()).origin).toBe(world.origin);
    },
  );
});
