/**
 * What a server declares of a tool (title, icons, outputSchema, annotations, execution), in Chromium
 * against the real services: an owner registers a real MCP server, drafts a tool from its discovery
 * and enables it, and sees the declaration on the tool's page; the server then declares the tool
 * destructive, the owner's next discovery makes the tool need re-authorization, the page shows the
 * new declaration, and the owner authorizes it. Everything through the dashboard only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { startDashboardWorld, type DashboardWorld } from "../fixtures/dashboard.js";
import { startMcpServer, type ListedTool, type McpTestServer } from "../fixtures/mcp-server.js";
import { ownerOfNewOrganization } from "./members.js";

let world: DashboardWorld;
let upstream: McpTestServer;
let owner: Page;
let orgId: string;
let serverId: string;

const lookup: ListedTool = {
  name: "lookup_order",
  description: "looks an order up",
  inputSchema: { type: "object", properties: { order: { type: "string" } } },
  title: "Look up an order",
  outputSchema: { type: "object", properties: { found: { type: "boolean" } }, required: ["found"] },
  annotations: { readOnlyHint: true, destructiveHint: false },
};
/** What the server lists now: a test changes it as a new version of the server would. */
let listed = lookup;

beforeAll(async () => {
  world = await startDashboardWorld({ upstreams: true });
  upstream = await startMcpServer(world.upstreams!.ca, { list: () => ({ tools: [listed] }) });
  ({ owner, orgId } = await ownerOfNewOrganization(world, "Declarations Inc"));
}, 240_000);
afterAll(async () => {
  await world?.close();
  await upstream?.close();
});

const declarationShown = async (page: Page) =>
  JSON.parse((await page.getByTestId("tool-declaration").textContent()) ?? "null");

describe("a tool's declaration in the dashboard", () => {
  it(
    "shows what the server declared, and asks for re-authorization when a discovery finds it changed",
    { timeout: 120_000 },
    async () => {
      await owner.goto(`/orgs/${orgId}/mcp-servers`);
      await owner.getByLabel("Name").fill("orders");
      await owner.getByLabel("URL (public https)").fill(upstream.url);
      await owner.getByRole("button", { name: "Add MCP server" }).click();
      await owner.getByRole("heading", { name: "orders" }).waitFor();
      serverId = new URL(owner.url()).pathname.split("/")[4]!;

      await owner.getByRole("button", { name: "Discover tools" }).click();
      await owner.getByRole("link", { name: "Make a draft of lookup_order" }).click();
      await owner.getByLabel(/^Exposed name/).fill("orders_lookup");
      await owner.getByLabel(/^Action/).fill("orders.lookup");
      await owner.getByLabel(/Enable it now/).check();
      await owner.getByRole("button", { name: "Create the tool" }).click();
      await owner.getByRole("heading", { name: "Tool orders_lookup" }).waitFor();
      await owner.getByTestId("tool-state").getByText("enabled").waitFor();
      const { name: _name, description: _d, inputSchema: _s, ...declared } = lookup;
      await expect(declarationShown(owner)).resolves.toEqual(declared);
      const toolPath = new URL(owner.url()).pathname;
      const authorizedDigest = await owner.getByTestId("binding-digest").textContent();

      // The server's next version declares the tool destructive; the owner discovers again.
      listed = { ...lookup, annotations: { readOnlyHint: false, destructiveHint: true } };
      await owner.goto(`/orgs/${orgId}/mcp-servers/${serverId}`);
      await owner.getByRole("button", { name: "Discover tools" }).click();
      await owner.getByRole("link", { name: "open the tool" }).click();
      await owner.getByRole("heading", { name: "Tool orders_lookup" }).waitFor();
      await owner.getByTestId("reauthorization-required").waitFor();
      await expect(declarationShown(owner)).resolves.toEqual({
        ...declared,
        annotations: { readOnlyHint: false, destructiveHint: true },
      });
      const newDigest = await owner.getByTestId("binding-digest").textContent();
      expect(newDigest).not.toBe(authorizedDigest);

      await owner.getByRole("button", { name: "Authorize this binding" }).click();
      await expect
        .poll(() => owner.getByTestId("reauthorization-required").count(), { timeout: 15_000 })
        .toBe(0);
      await owner.reload();
      await owner.getByTestId("tool-state").getByText("enabled").waitFor();
      expect(new URL(owner.url()).pathname).toBe(toolPath);
      await expect(owner.getByTestId("reauthorization-required").count()).resolves.toBe(0);
      // The binding shown and the authorized one are the same digest now.
      await expect(owner.locator("code", { hasText: newDigest! }).count()).resolves.toBe(2);
    },
  );
});
