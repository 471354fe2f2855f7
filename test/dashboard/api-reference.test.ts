/**
 * The API reference page: a signed-in person follows "API reference" in the dashboard's header and
 * Scalar's viewer, loaded only then, lists the operations of the document the Cloud API serves at
 * /api/v1/openapi.json (generated from the routes' zod schemas, api/src/openapi). The viewer fetches nothing from any other origin (no fonts, telemetry or AI
 * agent), so it works where the dashboard's content security policy and a closed network allow.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  newEmail,
  screenshot,
  signUpInBrowser,
  startDashboardWorld,
  type DashboardWorld,
} from "../fixtures/dashboard.js";

let world: DashboardWorld;
let dir: string;
beforeAll(async () => {
  world = await startDashboardWorld();
  dir = mkdtempSync(join(tmpdir(), "countersign-api-reference-"));
}, 120_000);
afterAll(async () => {
  await world?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it("lists the Cloud API's operations from the served document", { timeout: 120_000 }, async () => {
  const { page } = await world.person();
  const requested: string[] = [];
  page.on("request", (r) => requested.push(r.url()));
  // What the content security policy refused (a style, a script, a fetch), as the page saw it.
  await page.addInitScript(() => {
    const seen: string[] = [];
    Object.assign(window, { cspViolations: seen });
    document.addEventListener("securitypolicyviolation", (e) =>
      seen.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`),
    );
  });
  await signUpInBrowser(world, page, newEmail("reader"));
  const before = requested.length;
  await page.getByRole("link", { name: "API reference" }).click();
  // The viewer is a large chunk of its own: on a busy machine it takes a while to arrive.
  await page.getByRole("heading", { name: "API reference", level: 1 }).waitFor({ timeout: 90_000 });
  // Operations of the served document as the viewer lists them (method and path), the first
  // group open; another group opens on a click, as a person browses to it.
  await page.getByText("/api/v1/auth/signin", { exact: true }).first().waitFor();
  await page.getByRole("button", { name: "Open Group - agents" }).first().click();
  await page.getByText("/api/v1/orgs/{org_id}/agents", { exact: true }).first().waitFor();
  const viewer = requested.slice(before);
  expect(viewer.some((u) => u === `${world.origin}/api/v1/openapi.json`)).toBe(true);
  // The viewer's code came with the page, not with the dashboard's first load.
  expect(requested.slice(0, before).some((u) => /ApiReferencePage-[\w-]+\.js$/.test(u))).toBe(false);
  expect(viewer.some((u) => /ApiReferencePage-[\w-]+\.js$/.test(u))).toBe(true);
  expect(requested.filter((u) => !u.startsWith(world.origin) && !u.startsWith("data:"))).toEqual([]);
  // Scalar's theme is a <style> element its scripts create, given this load's nonce: the policy
  // refused no style element and no script. What it still refuses, harmlessly: style attributes
  // written into markup (Scalar's probe of the scrollbar's width, Vue's static nodes), which no nonce
  // can admit, and zod's probe for eval as its schemas load (caught; zod then parses without it).
  const refused = await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);
  expect(
    refused.filter((v) => !v.startsWith("style-src-attr ") && !v.startsWith("script-src eval ")),
  ).toEqual([]);
  // The viewer's theme is in force: its <style> element was admitted (a refused one has no sheet).
  await expect(
    page.evaluate(() =>
      [...document.querySelectorAll("style")].some(
        (el) => el.textContent?.includes("--scalar-color-1") && el.sheet !== null,
      ),
    ),
  ).resolves.toBe(true);
  await screenshot(page, "api-reference", dir);
});
