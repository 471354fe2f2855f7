/**
 * The API reference page: a signed-in person follows "API reference" in the dashboard's header and
 * Scalar's viewer, loaded only then, lists the operations of the document the Cloud API serves at
 * /api/v1/openapi.json (generated from the routes' zod schemas, api/src/openapi). The viewer fetches nothing from any other origin (no fonts, telemetry or AI
 * agent), so it works where the dashboard's content security policy and a closed network allow.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  newEmail,
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

it("lists the Cloud API's operations from the served document", { timeout: 120_000 }, async () => {
  const { page } = await world.person();
  const requested: string[] = [];
  page.on("request", (r) => requested.push(r.url()));
  await signUpInBrowser(world, page, newEmail("reader"));
  const before = requested.length;
  await page.getByRole("link", { name: "API reference" }).click();
  await page.getByRole("heading", { name: "API reference", level: 1 }).waitFor();
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
});
