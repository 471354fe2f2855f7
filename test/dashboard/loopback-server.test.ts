/**
 * A person registers their own MCP server running on their machine at a loopback http URL
 * (`http://127.0.0.1:<port>/mcp`), through the dashboard only, where the installation allows
 * loopback as `make run` does: Chromium against the real Cloud API (loopback switch on) and
 * `@modelcontextprotocol/server-everything`, the MCP project's reference server, over Streamable
 * HTTP. Discovery lists its tools. With the switch off the same URL is refused (the API test,
 * api/src/mcp-servers/loopback-url.test.ts).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  newEmail,
  signUpInBrowser,
  startDashboardWorld,
  type DashboardWorld,
} from "../fixtures/dashboard.js";
import { startEverythingUpstream, type EverythingUpstream } from "../fixtures/everything-upstream.js";

let world: DashboardWorld;
let everything: EverythingUpstream;
beforeAll(async () => {
  world = await startDashboardWorld({ upstreams: true });
  everything = await startEverythingUpstream();
}, 120_000);
afterAll(async () => {
  await everything?.close();
  await world?.close();
});

it("adds an MCP server at a loopback http URL and discovers its tools", { timeout: 180_000 }, async () => {
  const { page } = await world.person();
  await signUpInBrowser(world, page, newEmail("local"));
  await page.getByLabel("Name").fill("Local Tools Inc");
  await page.getByRole("button", { name: "Create" }).click();
  await page.getByRole("button", { name: "Create the principal" }).waitFor();
  await page.getByRole("link", { name: "MCP servers" }).click();
  await page.getByTestId("url-rule").waitFor();
  // Plain http stays refused anywhere but this machine, with a sentence that says what to use.
  await page.getByLabel("Name").fill("elsewhere");
  await page.getByLabel("URL (public https)").fill("http://10.0.0.8:8080/mcp");
  await page.getByRole("button", { name: "Add MCP server" }).click();
  const refused = page.locator('[role=alert][data-code="URL_NOT_ALLOWED"]');
  await refused.waitFor();
  await expect(refused.textContent()).resolves.toBe(
    "This URL is not allowed (not https). Use an https address on a public network; an address on this machine works only where the installation allows loopback, as make run does. (URL_NOT_ALLOWED)",
  );

  await page.getByLabel("Name").fill("everything");
  expect(everything.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  await page.getByLabel("URL (public https)").fill(everything.url);
  await page.getByRole("button", { name: "Add MCP server" }).click();
  await page.getByRole("heading", { name: "everything" }).waitFor();
  await page.getByRole("button", { name: "Discover tools" }).click();
  await page.getByTestId("discovered-tools").getByText("echo", { exact: true }).waitFor();
  expect(everything.sessionIds.length).toBeGreaterThan(0);
});
