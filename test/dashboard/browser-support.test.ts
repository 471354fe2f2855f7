/**
 * What the dashboard does when the browser cannot keep keys, and when the session changes under
 * it: CRYPTO_UNAVAILABLE without WebCrypto Ed25519, STORAGE_UNAVAILABLE without IndexedDB (nothing
 * sent, nothing bound or registered in either case), SESSION_CHANGED when another tab signed in as
 * someone else (the change refused in the browser, nothing recorded), and an ended session taking
 * the person back to sign-in.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Page } from "playwright-core";
import {
  newEmail,
  screenshot,
  signInInBrowser,
  signUpInBrowser,
  startDashboardWorld,
  type DashboardWorld,
} from "../fixtures/dashboard.js";
import { sessionRequest } from "./setup-refunds.js";

let world: DashboardWorld;
let dir: string;
beforeAll(async () => {
  world = await startDashboardWorld();
  dir = mkdtempSync(join(tmpdir(), "countersign-browser-support-"));
}, 120_000);
afterAll(async () => {
  await world?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Every request the page sends to the Cloud API, by method and path. */
function recordApiRequests(page: Page): string[] {
  const sent: string[] = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith("/api/v1/")) sent.push(`${r.method()} ${url.pathname}`);
  });
  return sent;
}

async function ownerWithOrganization(page: Page, name: string): Promise<string> {
  await signUpInBrowser(world, page, newEmail("owner"));
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: "Create" }).click();
  await page.getByRole("heading", { name: "Organization principal" }).waitFor();
  return new URL(page.url()).pathname.split("/")[2]!;
}

const cases = [
  {
    code: "CRYPTO_UNAVAILABLE",
    // A browser without Ed25519 in WebCrypto: its generateKey refuses the algorithm.
    init: () => {
      const original = crypto.subtle.generateKey.bind(crypto.subtle);
      crypto.subtle.generateKey = ((alg: AlgorithmIdentifier, ...rest: [boolean, KeyUsage[]]) =>
        (typeof alg === "string" ? alg : alg.name) === "Ed25519"
          ? Promise.reject(new DOMException("Unrecognized name.", "NotSupportedError"))
          : original(alg as never, ...rest)) as typeof crypto.subtle.generateKey;
    },
  },
  {
    code: "STORAGE_UNAVAILABLE",
    // A page context with IndexedDB disabled (as some private modes and policies do).
    init: () => {
      Object.defineProperty(window, "indexedDB", { get: () => undefined, configurable: true });
    },
  },
];

for (const c of cases) {
  it(`says ${c.code} and sends nothing when a key cannot be made or kept`, { timeout: 120_000 }, async () => {
    const { context, page } = await world.person();
    await context.addInitScript(c.init);
    const orgId = await ownerWithOrganization(page, `${c.code} org`);

    // The principal: refused before any request.
    const sent = recordApiRequests(page);
    await page.getByRole("button", { name: "Create the principal" }).click();
    await expect(page.getByRole("alert").getAttribute("data-code")).resolves.toBe(c.code);
    expect(sent.filter((s) => !s.startsWith("GET "))).toEqual([]);
    expect((await sessionRequest(page, "GET", `/orgs/${orgId}/principal`)).principal).toBeNull();

    // A personal key: refused before the challenge is asked for.
    await page.goto("/account");
    await page.getByTestId("no-identity").waitFor();
    sent.length = 0;
    await page.getByRole("button", { name: "Make and bind a key in this browser" }).click();
    const alert = page.locator(`[role=alert][data-code="${c.code}"]`).first();
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/Nothing was sent/);
    await screenshot(page, c.code.toLowerCase().replace("_", "-"), dir);
    expect(sent.filter((s) => !s.startsWith("GET "))).toEqual([]);
    expect((await sessionRequest(page, "GET", "/me/identities")).items).toEqual([]);
  });
}

it(
  "refuses a change with SESSION_CHANGED after another tab signed in as someone else, and records nothing",
  { timeout: 120_000 },
  async () => {
    const first = newEmail("first");
    const second = newEmail("second");
    const { context, page: tabA } = await world.person();
    await signUpInBrowser(world, tabA, first);
    await tabA.getByRole("heading", { name: "Create an organization" }).waitFor();

    // In a second tab of the same browser, another person signs in (the cookie is replaced).
    const setup = await world.person();
    await signUpInBrowser(world, setup.page, second);
    const tabB = await context.newPage();
    await signInInBrowser(tabB, second);
    await tabB.getByRole("heading", { name: "Create an organization" }).waitFor();

    // Tab A learns of it, and its change is refused before anything is sent.
    await tabA.locator('[role=alert][data-code="SESSION_CHANGED"]').first().waitFor();
    const sent = recordApiRequests(tabA);
    await tabA.getByLabel("Name").fill("Made in the wrong account");
    await tabA.getByRole("button", { name: "Create" }).click();
    await tabA.locator('form [role=alert][data-code="SESSION_CHANGED"]').waitFor();
    await screenshot(tabA, "session-changed", dir);
    expect(sent.filter((s) => !s.startsWith("GET "))).toEqual([]);
    const { rows } = await world.db.pool.query(
      "select count(*)::int as n from organizations where name = 'Made in the wrong account'",
    );
    expect(rows[0].n).toBe(0);

    // Reloading takes tab A to the account now signed in.
    await tabA.reload();
    await tabA.getByRole("link", { name: second }).waitFor();
  },
);

it(
  "takes the person back to sign-in when the session ends, and back to the page after signing in",
  { timeout: 120_000 },
  async () => {
    const email = newEmail("idle");
    const { page } = await world.person();
    await signUpInBrowser(world, page, email);
    await page.goto("/account");
    await page.getByTestId("no-identity").waitFor();
    // The session ends on the server (as after 12 hours idle); the next request is refused.
    await world.db.pool.query(
      "delete from sessions where user_id = (select id from users where email = $1)",
      [email],
    );
    await page.getByRole("button", { name: "Make and bind a key in this browser" }).click();
    await page.getByText("Your session ended. Sign in again to continue.").waitFor();
    await screenshot(page, "session-ended", dir);
    expect(new URL(page.url()).pathname).toBe("/sign-in");
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill("correct horse battery staple");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByTestId("account-email").waitFor();
    expect(new URL(page.url()).pathname).toBe("/account");
  },
);
