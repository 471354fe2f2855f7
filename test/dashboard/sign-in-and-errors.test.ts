/**
 * Sign-in lands on a page of the person signed in, and errors a person can cause read as sentences
 * that say what to do, in Chromium against the real Cloud API, PostgreSQL and SMTP server: a second
 * person signing in in the same browser after the first signed out (or whose page the sign-in
 * carried as `next`) lands on their own organization, not on the first person's page (which would
 * answer NOT_FOUND); the first person signing in again gets their page back; a short password at
 * sign-up says how long it must be; a policy's examples name their row as the table numbers it.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Page } from "playwright-core";
import {
  PASSWORD,
  newEmail,
  signUpInBrowser,
  startDashboardWorld,
  type DashboardWorld,
} from "../fixtures/dashboard.js";
import { configureDecisionOnlyRefunds } from "./setup-refunds.js";

let world: DashboardWorld;
beforeAll(async () => {
  world = await startDashboardWorld();
}, 120_000);
afterAll(async () => {
  await world?.close();
});

const orgIdOf = (page: Page) => new URL(page.url()).pathname.split("/")[2]!;

async function newOrganization(page: Page, name: string): Promise<string> {
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: "Create" }).click();
  await page.getByRole("button", { name: "Create the principal" }).waitFor();
  return orgIdOf(page);
}

async function signIn(page: Page, email: string) {
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
}

it("sign-in lands on a page of the person who signed in", { timeout: 240_000 }, async () => {
  // Two people, each with an organization; the second signs up in a browser of their own first.
  const bob = (await world.person()).page;
  const bobEmail = newEmail("bob");
  await signUpInBrowser(world, bob, bobEmail);
  const bobOrg = await newOrganization(bob, "Bob's Org");

  const { page } = await world.person();
  const aliceEmail = newEmail("alice");
  await signUpInBrowser(world, page, aliceEmail);
  const aliceOrg = await newOrganization(page, "Alice's Org");
  await page.goto(`/orgs/${aliceOrg}/agents`);
  await page.getByRole("button", { name: "Create agent" }).waitFor();

  // Alice signs out; Bob signs in in the same browser and lands on his own organization.
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  await signIn(page, bobEmail);
  await page.waitForURL(`**/orgs/${bobOrg}`);
  await page.getByRole("heading", { name: "Overview" }).or(page.getByRole("navigation")).first().waitFor();
  await expect(page.getByRole("alert").count()).resolves.toBe(0);

  // A sign-in page that carries Alice's page as `next` (her session ended there): Bob still lands on his own.
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  await page.goto(`/orgs/${aliceOrg}/agents`);
  await page.waitForURL(/\/sign-in\?next=/);
  await signIn(page, bobEmail);
  await page.waitForURL(`**/orgs/${bobOrg}`);
  await expect(page.locator('[data-code="NOT_FOUND"]').count()).resolves.toBe(0);

  // Alice, signing in from her own page's `next`, is taken back to it.
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  await page.goto(`/orgs/${aliceOrg}/agents`);
  await page.waitForURL(/\/sign-in\?next=/);
  await signIn(page, aliceEmail);
  await page.waitForURL(`**/orgs/${aliceOrg}/agents`);
  await page.getByRole("button", { name: "Create agent" }).waitFor();
});

it("a short password at sign-up says how long it must be, and nothing is created", async () => {
  const { page } = await world.person();
  const email = newEmail("short");
  await page.goto("/sign-up");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel(/^Password/).fill("short");
  await page.getByRole("button", { name: "Sign up" }).click();
  const alert = page.locator('[role=alert][data-code="VALIDATION_FAILED"]');
  await alert.waitFor();
  await expect(alert.textContent()).resolves.toBe(
    "The password must be at least 12 characters long. Correct it and try again. (VALIDATION_FAILED)",
  );
  // The same sentence stands under the field it is about, which says it is invalid.
  const password = page.getByLabel(/^Password/);
  await expect(password.getAttribute("aria-invalid")).resolves.toBe("true");
  const describedBy = (await password.getAttribute("aria-describedby"))!.split(" ");
  const descriptions = await Promise.all(describedBy.map((id) => page.locator(`[id="${id}"]`).textContent()));
  expect(descriptions).toContain("The password must be at least 12 characters long.");
  expect((await world.db.pool.query("select 1 from users where email = $1", [email])).rowCount).toBe(0);
});

it("a form sent with a field empty or mistyped says what to do under that field, and sends nothing", async () => {
  const { page } = await world.person();
  const sent: string[] = [];
  page.on("request", (r) => {
    if (r.method() === "POST" && r.url().includes("/api/v1/auth/signin")) sent.push(r.url());
  });
  await page.goto("/sign-in");
  await page.getByLabel("E-mail").fill("not an address");
  await page.getByRole("button", { name: "Sign in" }).click();
  const email = page.getByLabel("E-mail");
  const password = page.getByLabel("Password");
  await expect.poll(() => password.getAttribute("aria-invalid")).toBe("true");
  const sentence = async (field: typeof email) =>
    page.locator(`[id="${(await field.getAttribute("aria-describedby"))!}"]`).textContent();
  await expect(sentence(email)).resolves.toBe(
    "The e-mail address is not an e-mail address; write it as name@example.com.",
  );
  await expect(sentence(password)).resolves.toBe("The password is empty: fill it in.");
  // Focus goes to the first field to correct; the sentence goes once the value is right.
  await expect(email.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
  await email.fill("someone@example.com");
  await expect.poll(() => email.getAttribute("aria-invalid")).toBe(null);
  expect(sent).toEqual([]);
});

it("a policy's example issues are sentences numbered as the rows are", { timeout: 180_000 }, async () => {
  const { page } = await world.person();
  await signUpInBrowser(world, page, newEmail("examples"));
  const orgId = await newOrganization(page, "Examples Inc");
  const { policyId } = await configureDecisionOnlyRefunds(page, orgId);
  await page.goto(`/orgs/${orgId}/policies/${policyId}`);
  await page.getByRole("button", { name: "Add an example" }).click();
  await page.getByRole("button", { name: "Add an example" }).click();
  await page.getByLabel("Example 1 tool").fill("refund_payment");
  await page.getByLabel("Example 1 action").fill("payments.refund");
  const issues = page.getByTestId("example-issue");
  // The second row's tool and action are empty: the issues say so for "Example 2", as the table numbers it.
  await page.getByLabel("Example 2 tool").fill("refund_payment");
  await expect.poll(() => issues.allTextContents()).toEqual(["Example 2: the action is empty: fill it in."]);
  await page.getByLabel("Example 2 action").fill("payments.refund");
  await page.getByLabel("Example 2 amount").fill("50");
  await page.getByLabel("Example 2 currency").fill("eur");
  await expect
    .poll(() => issues.allTextContents())
    .toEqual(["Example 2: the currency is three capital letters, such as EUR."]);
  await page.getByLabel("Example 2 amount").fill("");
  await page.getByLabel("Example 2 currency").fill("EUR");
  await expect
    .poll(() => issues.allTextContents())
    .toEqual(["Example 2: an amount needs its currency and a currency its amount. Fill in both or neither."]);
  await expect(page.getByRole("button", { name: "Save examples" }).isDisabled()).resolves.toBe(true);
  await page.getByLabel("Example 2 amount").fill("50");
  await expect.poll(() => issues.count()).toBe(0);
  await expect(page.getByRole("button", { name: "Save examples" }).isDisabled()).resolves.toBe(false);
});
