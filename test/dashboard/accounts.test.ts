/**
 * Every page the account e-mails link to, followed from the mail the real SMTP server received:
 * resend of the verification, password reset and its confirmation (the old password stops
 * working), change of password, change of e-mail approved from the new address and a second one
 * stopped from the old address; a used link shows INVALID_OR_EXPIRED_TOKEN.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually } from "../fixtures/kube.js";
import {
  linkIn,
  mailedLink,
  newEmail,
  PASSWORD,
  signInInBrowser,
  signUpInBrowser,
  startDashboardWorld,
  type DashboardWorld,
} from "../fixtures/dashboard.js";

let world: DashboardWorld;
beforeAll(async () => {
  world = await startDashboardWorld();
}, 120_000);
afterAll(async () => {
  await world?.close();
});

const signInAnswer = async (email: string, password: string) =>
  (
    await fetch(`${world.origin}/api/v1/auth/signin`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password }),
    })
  ).status;

it("resends the verification link, and a used link says so", { timeout: 90_000 }, async () => {
  const email = newEmail("late");
  const { page } = await world.person();
  await page.goto("/sign-up");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel(/^Password/).fill(PASSWORD);
  await page.getByRole("button", { name: "Sign up" }).click();
  const first = await mailedLink(world, email, "verify-email");
  await page.goto("/verify-email/resend");
  await page.getByLabel("E-mail").fill(email);
  await page.getByRole("button", { name: "Send" }).click();
  await page.getByText("a new link is on its way").waitFor();
  const second = await eventually("a second verification link", async () => {
    const link = linkIn(world.smtp, email, "verify-email");
    return link !== first && link;
  });
  await page.goto(second);
  await page.getByText("Your address is verified").waitFor();
  // The same link opened again, in a new page load.
  await page.goto("/sign-in");
  await page.goto(second);
  await page.locator('[role=alert][data-code="INVALID_OR_EXPIRED_TOKEN"]').waitFor();
});

it(
  "resets a forgotten password through the mailed link, and changes it when signed in",
  { timeout: 90_000 },
  async () => {
    const email = newEmail("forgetful");
    const { page } = await world.person();
    await signUpInBrowser(world, page, email);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.goto("/password-reset");
    await page.getByLabel("E-mail").fill(email);
    await page.getByRole("button", { name: "Send a reset link" }).click();
    await page.getByText("a reset link was sent").waitFor();
    await page.goto(await mailedLink(world, email, "password-reset"));
    await page.getByLabel(/^New password/).fill("a brand new passphrase");
    await page.getByRole("button", { name: "Set the password" }).click();
    await page.getByText("Your password is changed").waitFor();
    expect(await signInAnswer(email, PASSWORD)).toBe(401);
    await signInInBrowser(page, email, "a brand new passphrase");

    await page.goto("/account");
    await page.getByLabel("Current password").fill("not my password at all");
    await page.getByLabel("New password").fill("yet another passphrase");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.locator('[role=alert][data-code="INVALID_CURRENT_PASSWORD"]').waitFor();
    expect(await signInAnswer(email, "yet another passphrase")).toBe(401);
    await page.getByLabel("Current password").fill("a brand new passphrase");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("Your password is changed").waitFor();
    expect(await signInAnswer(email, "yet another passphrase")).toBe(200);
  },
);

it(
  "moves the account to a new address approved from it, and stops a change from the old one",
  { timeout: 90_000 },
  async () => {
    const email = newEmail("mover");
    const next = newEmail("moved");
    const { page } = await world.person();
    await signUpInBrowser(world, page, email);
    await page.goto("/account");
    await page.getByLabel("New e-mail").fill(next);
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole("button", { name: "Change e-mail" }).click();
    await page.getByText("We sent a confirmation link").waitFor();
    await page.goto(await mailedLink(world, next, "email-change/approve"));
    await page.getByLabel("Your password").fill(PASSWORD);
    await page.getByRole("button", { name: "Confirm" }).click();
    await page.getByText("Your account now uses this address").waitFor();
    expect(await signInAnswer(next, PASSWORD)).toBe(200);
    expect(await signInAnswer(email, PASSWORD)).toBe(401);

    // A change the owner of the current address did not ask for is stopped from it.
    const intruder = newEmail("intruder");
    await signInInBrowser(page, next);
    await page.goto("/account");
    await page.getByLabel("New e-mail").fill(intruder);
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole("button", { name: "Change e-mail" }).click();
    await page.getByText("We sent a confirmation link").waitFor();
    await page.goto(await mailedLink(world, next, "email-change/reject"));
    await page.getByRole("button", { name: "Stop the change" }).click();
    await page.getByText("The change is stopped").waitFor();
    await page.goto(await mailedLink(world, intruder, "email-change/approve"));
    await page.getByLabel("Your password").fill(PASSWORD);
    await page.getByRole("button", { name: "Confirm" }).click();
    await page.locator('[role=alert][data-code="INVALID_OR_EXPIRED_TOKEN"]').waitFor();
    expect(await signInAnswer(next, PASSWORD)).toBe(200);
  },
);
