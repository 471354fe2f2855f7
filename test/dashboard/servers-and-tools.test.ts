/**
 * MCP servers, tools and observe windows in Chromium against the real services: a real MCP server
 * built with the SDK on https (a throwaway CA the Cloud API is told to trust), the address rules'
 * URL_NOT_ALLOWED with its reason, a write-only credential, discovery and its refusals (UPSTREAM_ERROR,
 * DISCOVERY_BUSY), a developer's draft enabled by an admin, the re-authorization a binding change
 * needs, an observe window started, reported and ended; what a viewer is shown; axe-core on each page.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { screenshot, startDashboardWorld, type DashboardWorld } from "../fixtures/dashboard.js";
import { seriousViolations } from "./axe.js";
import { generateSeed, nodeSigner } from "../../protocol/src/evidence/index.js";
import { newIdentity } from "../fixtures/identities.js";
import { simpleTool, startMcpServer, type McpTestServer } from "../fixtures/mcp-server.js";
import { joinAs, ownerOfNewOrganization } from "./members.js";
import { configureDecisionOnlyRefunds, sessionRequest } from "./setup-refunds.js";

const HEADER = "Bearer upstream-s3cret-value";

let world: DashboardWorld;
let dir: string;
let upstream: McpTestServer;
let slow: McpTestServer;
/** A service-aware server: it declares at initialize the identity it signs with. */
let attested: McpTestServer;
const attestedSigner = nodeSigner(generateSeed());
let owner: Page;
let developer: Page;
let viewer: Page;
let orgId: string;
let serverId: string;
let toolId: string;
/** Pages visited in the tests, checked by the viewer and by axe-core at the end. */
const visited = new Set<string>();

const alert = (page: Page, code: string) => page.locator(`[role=alert][data-code="${code}"]`);
/** Whether a field reads invalid, and the sentences its input is described by (its error under it). */
const fieldSays = (page: Page, label: string | RegExp) =>
  page.getByLabel(label).evaluate((el) => ({
    invalid: el.getAttribute("aria-invalid"),
    said: (el.getAttribute("aria-describedby") ?? "")
      .split(" ")
      .map((id) => document.getElementById(id)?.textContent ?? "")
      .join(" "),
  }));
const goto = async (page: Page, path: string) => {
  visited.add(path);
  await page.goto(path);
};

beforeAll(async () => {
  world = await startDashboardWorld({ upstreams: true });
  dir = mkdtempSync(join(tmpdir(), "countersign-servers-"));
  const ca = world.upstreams!.ca;
  upstream = await startMcpServer(ca, {
    authorization: HEADER,
    list: () => ({
      tools: [
        simpleTool("refund"),
        simpleTool("lookup_order"),
        {
          name: "broken",
          description: "a tool whose schema is no object schema",
          inputSchema: { type: "string" },
        },
      ],
    }),
  });
  attested = await startMcpServer(ca, {
    list: () => ({ tools: [simpleTool("post_entry")] }),
    experimental: { "service/evidence": { service_evidence: "0.1", server_kid: attestedSigner.kid } },
  });
  slow = await startMcpServer(ca, { list: () => ({ tools: [simpleTool("slow_tool")] }), delayMs: 4000 });
  ({ owner, orgId } = await ownerOfNewOrganization(world, "Servers Inc", { principal: true }));
  developer = await joinAs(world, owner, orgId, "developer");
  viewer = await joinAs(world, owner, orgId, "viewer");
}, 240_000);
afterAll(async () => {
  await world?.close();
  await upstream?.close();
  await slow?.close();
  await attested?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("MCP servers", () => {
  it(
    "refuses a private address with its reason, keeps the credential write-only, and discovers the server's tools",
    { timeout: 90_000 },
    async () => {
      await goto(owner, `/orgs/${orgId}/mcp-servers`);
      await owner.getByLabel("Name").fill("payments");
      await owner.getByLabel("URL (public https)").fill("https://10.20.30.40/mcp");
      await owner.getByRole("button", { name: "Add MCP server" }).click();
      await alert(owner, "URL_NOT_ALLOWED").waitFor();
      await expect(owner.getByTestId("refusal-details").textContent()).resolves.toContain("private address");
      // Said again under the field it is about.
      await expect(fieldSays(owner, "URL (public https)")).resolves.toEqual({
        invalid: "true",
        said: expect.stringContaining("This URL is not allowed (private address)."),
      });
      expect((await sessionRequest(owner, "GET", `/orgs/${orgId}/mcp-servers`)).items).toEqual([]);

      await owner.getByLabel("URL (public https)").fill(upstream.url);
      await owner.getByRole("button", { name: "Add MCP server" }).click();
      await owner.getByRole("heading", { name: "payments" }).waitFor();
      serverId = new URL(owner.url()).pathname.split("/")[4]!;
      visited.add(`/orgs/${orgId}/mcp-servers/${serverId}`);
      await expect(owner.getByTestId("credential-state").textContent()).resolves.toBe("not configured");

      // Without the header the server answers 401: an UPSTREAM_* refusal with the upstream's status.
      await owner.getByRole("button", { name: "Discover tools" }).click();
      await alert(owner, "UPSTREAM_ERROR").waitFor();
      await expect(owner.getByTestId("refusal-details").textContent()).resolves.toContain("HTTP 401");

      await owner.getByLabel(/^New header value/).fill(HEADER);
      await owner.getByRole("button", { name: "Set the header" }).click();
      await owner.getByTestId("credential-state").getByText("configured (version 1)").waitFor();
      // Written, never shown back: not in the page, not in the field, not in the API's answer.
      await expect(owner.getByLabel(/^New header value/).inputValue()).resolves.toBe("");
      expect(await owner.content()).not.toContain("s3cret");
      const answer = await sessionRequest(owner, "GET", `/orgs/${orgId}/mcp-servers/${serverId}`);
      expect(JSON.stringify(answer)).not.toContain("s3cret");
      expect(answer.mcp_server.credential).toEqual({ configured: true, version: 1 });

      await owner.getByRole("button", { name: "Discover tools" }).click();
      const found = owner.getByTestId("discovered-tools");
      await found.waitFor();
      await expect(found.locator("tbody tr td:first-child").allTextContents()).resolves.toEqual([
        "refund",
        "lookup_order",
        "broken",
      ]);
      await found.getByText("unusable: not object schema").waitFor();
      expect(upstream.authorizations.at(-1)).toBe(HEADER);
      await screenshot(owner, "mcp-server-discovery", dir);
    },
  );

  it(
    "registers a service-aware server's identity, refusing what the server does not declare",
    { timeout: 60_000 },
    async () => {
      const ledger = (
        await sessionRequest(owner, "POST", `/orgs/${orgId}/mcp-servers`, {
          kind: "mcp",
          name: "ledger",
          url: attested.url,
        })
      ).mcp_server;
      const path = `/orgs/${orgId}/mcp-servers/${ledger.id}`;
      await goto(owner, path);
      // It declares an identity none registered yet: discovery says so, with the KID it declares.
      await owner.getByRole("button", { name: "Discover tools" }).click();
      await alert(owner, "UPSTREAM_IDENTITY_UNKNOWN").waitFor();
      await expect(owner.getByTestId("refusal-details").textContent()).resolves.toContain(attestedSigner.kid);

      const documentField = owner.getByLabel(/^Identity document/);
      const register = owner.getByRole("button", { name: "Register the identity" });
      // Not JSON: said under the field, and nothing is sent.
      await documentField.fill("{not json");
      await register.click();
      await expect
        .poll(() => fieldSays(owner, /^Identity document/))
        .toEqual({ invalid: "true", said: expect.stringContaining("is not a JSON object") });
      // Another server's document, and this server's with a key it does not sign with: refused.
      const elsewhere = newIdentity("mcp_server", { organization_id: orgId, id: serverId });
      await documentField.fill(JSON.stringify(elsewhere.documents[0]));
      await register.click();
      await alert(owner, "IDENTITY_INVALID").waitFor();
      const notDeclared = newIdentity("mcp_server", { organization_id: orgId, id: ledger.id });
      await documentField.fill(JSON.stringify(notDeclared.documents[0]));
      await register.click();
      // The registration's refusal (the discovery's, with the same code, may still be shown beside it).
      await alert(owner, "UPSTREAM_IDENTITY_UNKNOWN").filter({ hasText: "another KID" }).waitFor();
      expect(
        (await sessionRequest(owner, "GET", `/orgs/${orgId}/mcp-servers/${ledger.id}`)).mcp_server.server_kid,
      ).toBe(null);

      const identity = newIdentity(
        "mcp_server",
        { organization_id: orgId, id: ledger.id },
        { signer: attestedSigner },
      );
      await documentField.fill(JSON.stringify(identity.documents[0]));
      await register.click();
      await owner.getByTestId("server-kid").getByText(identity.kid).waitFor();
      await owner.getByRole("button", { name: "Discover tools" }).click();
      await owner.getByTestId("discovered-tools").getByText("post_entry", { exact: true }).waitFor();
      await screenshot(owner, "mcp-server-identity", dir);

      // Removing it asks first, leading with the consequence; Cancel changes nothing.
      const removeIdentity = owner.getByRole("button", { name: "Remove the identity" });
      await removeIdentity.click();
      const confirm = owner.getByRole("dialog");
      await confirm.getByText("Results of ledger are no longer checked against a signature").waitFor();
      await confirm.getByRole("button", { name: "Cancel" }).click();
      await confirm.waitFor({ state: "detached" });
      const kidOf = async () =>
        (await sessionRequest(owner, "GET", `/orgs/${orgId}/mcp-servers/${ledger.id}`)).mcp_server.server_kid;
      await expect(kidOf()).resolves.toBe(identity.kid);
      await removeIdentity.click();
      await confirm.getByRole("button", { name: "Remove the identity" }).click();
      await owner.getByTestId("server-kid").getByText("none").waitFor();
      await expect(kidOf()).resolves.toBe(null);
    },
  );

  it("answers DISCOVERY_BUSY while the organization's two discoveries run", { timeout: 60_000 }, async () => {
    const slowServer = (
      await sessionRequest(owner, "POST", `/orgs/${orgId}/mcp-servers`, {
        kind: "mcp",
        name: "slow",
        url: slow.url,
      })
    ).mcp_server;
    const running = [1, 2].map(() =>
      sessionRequest(owner, "POST", `/orgs/${orgId}/mcp-servers/${slowServer.id}/discover`, {}),
    );
    await expect.poll(() => slow.listCalls, { timeout: 20_000 }).toBe(2);
    await owner.goto(`/orgs/${orgId}/mcp-servers/${slowServer.id}`);
    await owner.getByRole("button", { name: "Discover tools" }).click();
    await alert(owner, "DISCOVERY_BUSY").waitFor();
    await expect(owner.getByTestId("refusal-details").textContent()).resolves.toMatch(
      /Try again in \d+ seconds/,
    );
    for (const r of await Promise.all(running))
      expect(r.tools.map((t: { name: string }) => t.name)).toEqual(["slow_tool"]);
    expect(slow.listCalls).toBe(2);

    // A server without recorded actions is deleted after a confirmation that leads with the consequence.
    await owner.getByRole("button", { name: "Delete MCP server" }).click();
    const confirm = owner.getByRole("dialog");
    await confirm.getByText("Agents can no longer call the tools of slow").waitFor();
    await confirm.getByRole("button", { name: "Delete the MCP server" }).click();
    await owner.getByRole("heading", { name: "MCP servers and integrations" }).waitFor();
    await expect(sessionRequest(owner, "GET", `/orgs/${orgId}/mcp-servers/${slowServer.id}`)).rejects.toThrow(
      /404/,
    );
  });
});

describe("tools", () => {
  it(
    "lets a developer draft a discovered tool, which only an admin enables",
    { timeout: 90_000 },
    async () => {
      await goto(developer, `/orgs/${orgId}/mcp-servers/${serverId}`);
      await developer.getByRole("button", { name: "Discover tools" }).click();
      await developer.getByRole("link", { name: "Make a draft of refund" }).click();
      visited.add(`/orgs/${orgId}/tools/new`);
      await expect(developer.getByLabel(/^Upstream tool/).inputValue()).resolves.toBe("refund");
      await developer.getByLabel(/^Exposed name/).fill("refund_via_mcp");
      await developer.getByLabel(/^Action/).fill("payments.refund");
      await developer.getByLabel(/^Amount path/).fill("amount");
      await developer.getByLabel(/^Currency, fixed/).fill("EUR");
      await expect(developer.getByLabel(/^Enable it now/).count()).resolves.toBe(0);
      // A schema that is no JSON object is said under it, and nothing is created.
      await developer.getByLabel(/^Input schema/).fill("[1, 2");
      await developer.getByRole("button", { name: "Create the draft" }).click();
      await expect
        .poll(() => fieldSays(developer, /^Input schema/))
        .toEqual({ invalid: "true", said: expect.stringContaining("The input schema is not a JSON object") });
      expect((await sessionRequest(owner, "GET", `/orgs/${orgId}/tools`)).items).toEqual([]);
      await developer.getByLabel(/^Input schema/).fill("");
      await screenshot(developer, "tool-new", dir);
      await developer.getByRole("button", { name: "Create the draft" }).click();
      await developer.getByRole("heading", { name: "Tool refund_via_mcp" }).waitFor();
      toolId = new URL(developer.url()).pathname.split("/")[4]!;
      visited.add(`/orgs/${orgId}/tools/${toolId}`);
      await expect(developer.getByTestId("tool-state").textContent()).resolves.toBe(
        "draft (disabled), never authorized",
      );
      // The schema came from the server itself.
      await expect(developer.getByLabel("Input schema", { exact: true }).textContent()).resolves.toContain(
        '"amount"',
      );
      await developer.getByText("An owner or admin enables this draft.").waitFor();
      await screenshot(developer, "tool-draft", dir);
      await expect(developer.getByRole("button", { name: "Enable the tool" }).count()).resolves.toBe(0);

      await goto(owner, `/orgs/${orgId}/tools/${toolId}`);
      await owner.getByRole("button", { name: "Enable the tool" }).click();
      await owner.getByTestId("tool-state").getByText("enabled").waitFor();
      const { tool } = await sessionRequest(owner, "GET", `/orgs/${orgId}/tools/${toolId}`);
      expect(tool).toMatchObject({
        enabled: true,
        amount_mapping: { amount_path: "amount", currency: "EUR" },
        authorization: { state: "authorized", binding_digest: tool.binding.digest },
      });
      await screenshot(owner, "tool", dir);
    },
  );

  it(
    "shows plainly the re-authorization a binding change needs, and refuses the developer's change of it",
    { timeout: 90_000 },
    async () => {
      // A developer cannot change what an enabled tool is bound to; nothing changes.
      await goto(developer, `/orgs/${orgId}/mcp-servers/${serverId}`);
      await developer.getByLabel(/^New header value/).fill("Bearer another");
      await developer.getByRole("button", { name: "Replace the header" }).click();
      await alert(developer, "ADMIN_REQUIRED").waitFor();
      expect(
        (await sessionRequest(owner, "GET", `/orgs/${orgId}/mcp-servers/${serverId}`)).mcp_server.credential
          .version,
      ).toBe(1);

      // The owner can: the tool's calls now need a re-authorization, said on its page.
      await goto(owner, `/orgs/${orgId}/mcp-servers/${serverId}`);
      await owner.getByLabel(/^New header value/).fill(HEADER);
      await owner.getByRole("button", { name: "Replace the header" }).click();
      await owner.getByTestId("credential-state").getByText("configured (version 2)").waitFor();
      await owner.getByTestId("tools").getByText("re-authorization required").waitFor();
      await owner.getByRole("link", { name: "refund_via_mcp" }).click();
      const notice = owner.getByTestId("reauthorization-required");
      await notice.getByText("TOOL_REAUTHORIZATION_REQUIRED").waitFor();
      await screenshot(owner, "tool-reauthorization", dir);

      // Disabled and enabled again: enabling refuses a binding other than the one authorized.
      await owner.getByRole("button", { name: "Disable the tool" }).click();
      await owner.getByTestId("tool-state").getByText("draft (disabled)").waitFor();
      await owner.getByRole("button", { name: "Enable the tool" }).click();
      await alert(owner, "BINDING_CHANGED").waitFor();
      const digest = await owner.getByTestId("binding-digest").textContent();
      await expect(owner.getByTestId("refusal-details").textContent()).resolves.toContain(digest!);
      expect((await sessionRequest(owner, "GET", `/orgs/${orgId}/tools/${toolId}`)).tool.enabled).toBe(false);

      await owner.getByRole("button", { name: "Authorize this binding" }).click();
      await expect(notice.waitFor({ state: "detached" })).resolves.toBeUndefined();
      await owner.getByRole("button", { name: "Enable the tool" }).click();
      await owner.getByTestId("tool-state").getByText("enabled").waitFor();
      const { tool } = await sessionRequest(owner, "GET", `/orgs/${orgId}/tools/${toolId}`);
      expect(tool.authorization).toMatchObject({ state: "authorized", binding_digest: digest });
      expect(tool.binding.credential_version).toBe(2);
    },
  );
});

describe("observe windows", () => {
  it(
    "shows the limits before starting, starts a window (admins), reports what it relaxed and ends it",
    { timeout: 120_000 },
    async () => {
      const { policyId } = await configureDecisionOnlyRefunds(owner, orgId);
      const agent = (
        await sessionRequest(owner, "POST", `/orgs/${orgId}/agents`, {
          name: "refund-bot",
          policy_id: policyId,
        })
      ).agent;
      const testKey = (
        await sessionRequest(owner, "POST", `/orgs/${orgId}/api-keys`, {
          name: "bot",
          kind: "gateway",
          environment: "test",
          agent_id: agent.id,
        })
      ).secret;
      await owner.goto(`/orgs/${orgId}/agents/${agent.id}`);
      await owner.getByLabel(/^Permissions/).fill("payments.*");
      await owner.getByRole("button", { name: "Sign and grant" }).click();
      await owner.getByTestId("delegations").getByText("payments.*").waitFor();
      await owner.getByTestId("observe-limits").getByText("Observe windows are off here").waitFor();
      await expect(owner.getByRole("button", { name: "Start observing" }).count()).resolves.toBe(0);

      await sessionRequest(owner, "PATCH", `/orgs/${orgId}`, { observe_max_hours: 2 });
      await owner.reload();
      const limits = owner.getByTestId("observe-limits");
      await limits.getByText("2 hours").waitFor();
      await limits.getByText(/test keys only/).waitFor();
      await owner.getByLabel(/^Hours/).fill("3");
      await owner.getByLabel(/^Type the agent's name/).fill("refund-bot");
      await owner.getByRole("button", { name: "Start observing" }).click();
      await alert(owner, "OBSERVE_WINDOW_TOO_LONG").waitFor();
      await owner.getByLabel(/^Hours/).fill("1");
      await owner.getByLabel(/^Type the agent's name/).fill("refund bot");
      await owner.getByRole("button", { name: "Start observing" }).click();
      await alert(owner, "CONFIRMATION_MISMATCH").waitFor();
      expect((await sessionRequest(owner, "GET", `/orgs/${orgId}/agents/${agent.id}/observe`)).open).toBe(
        null,
      );
      await owner.getByLabel(/^Type the agent's name/).fill("refund-bot");
      await owner.getByLabel(/^Reason/).fill("checking the new refund flow");
      await owner.getByRole("button", { name: "Start observing" }).click();
      await owner.getByTestId("observe-open").waitFor();
      await screenshot(owner, "observe-agent", dir);

      // A developer ends windows but does not start them.
      await developer.goto(`/orgs/${orgId}/agents/${agent.id}`);
      await developer.getByRole("button", { name: "End the window" }).waitFor();

      // Held for approval by the policy, allowed by the window (a test key).
      const relaxed = await world.gateway.authorize(testKey, {
        tool: "refund_payment",
        arguments: { amount: 500, order: "O-1" },
        idempotency_key: "O-1",
      });
      expect(relaxed.body).toMatchObject({ allowed: true });
      await goto(owner, `/orgs/${orgId}/observe`);
      await owner.getByRole("link", { name: /^Report of the window/ }).click();
      visited.add(new URL(owner.url()).pathname);
      await expect(owner.getByTestId("report-decisions").textContent()).resolves.toBe("1");
      await expect(owner.getByTestId("report-relaxed").textContent()).resolves.toBe("1");
      await owner.getByTestId("relaxed-calls").getByText("require approval").waitFor();
      await owner.getByText("checking the new refund flow").waitFor();
      await screenshot(owner, "observe-report", dir);

      await developer.getByRole("button", { name: "End the window" }).click();
      await developer.getByText("No open window: the policy is enforced.").waitFor();
      const after = await sessionRequest(owner, "GET", `/orgs/${orgId}/agents/${agent.id}/observe`);
      expect(after.open).toBe(null);
      expect(after.items[0]).toMatchObject({
        state: "ended",
        end_reason: "ended",
        reason: "checking the new refund flow",
      });
      await goto(owner, `/orgs/${orgId}/observe`);
      await owner.getByTestId("observe-windows").getByText("ended (ended)").waitFor();
      await screenshot(owner, "observe-windows", dir);
    },
  );
});

describe("decision-only integrations", () => {
  it(
    "adds one under the spec's choice 'Your code (decision only)', with no address or credential to give",
    { timeout: 60_000 },
    async () => {
      await goto(owner, `/orgs/${orgId}/mcp-servers`);
      const who = owner.getByLabel("Who executes calls");
      await who.waitFor();
      await expect(who.locator("option").allTextContents()).resolves.toEqual([
        "An MCP server (the Gateway calls it)",
        "Your code (decision only)",
      ]);
      await who.selectOption({ label: "Your code (decision only)" });
      await expect(owner.getByLabel("URL (public https)").count()).resolves.toBe(0);
      await owner.getByLabel("Name").fill("billing-code");
      await owner.getByRole("button", { name: "Add integration" }).click();
      await owner.getByRole("heading", { name: "billing-code" }).waitFor();
      await owner.getByText("decision-only integration", { exact: true }).waitFor();

      // The same name again: NAME_TAKEN, said under the name, and no second one.
      await goto(owner, `/orgs/${orgId}/mcp-servers`);
      await owner.getByLabel("Who executes calls").selectOption({ label: "Your code (decision only)" });
      await owner.getByLabel("Name").fill("billing-code");
      await owner.getByRole("button", { name: "Add integration" }).click();
      await alert(owner, "NAME_TAKEN").waitFor();
      await expect(fieldSays(owner, "Name")).resolves.toEqual({
        invalid: "true",
        said: expect.stringContaining("This name is already in use."),
      });
      const named = (await sessionRequest(owner, "GET", `/orgs/${orgId}/mcp-servers`)).items.filter(
        (s: { name: string }) => s.name === "billing-code",
      );
      expect(named).toHaveLength(1);
    },
  );
});

describe("roles and accessibility", () => {
  it("shows a viewer every page without a write action", { timeout: 90_000 }, async () => {
    const nav = viewer.getByRole("navigation", { name: "Organization" });
    for (const path of [...visited]) {
      await viewer.goto(path);
      await viewer.locator("main h1").first().waitFor();
      // Sorting a table's column is the only button a viewer gets.
      await expect(viewer.locator("main button:not(thead button)").count(), path).resolves.toBe(0);
      await expect(viewer.locator("main form").count(), path).resolves.toBe(0);
      await expect(viewer.getByRole("link", { name: "New tool draft" }).count(), path).resolves.toBe(0);
    }
    await nav.getByRole("link", { name: "MCP servers" }).waitFor();
    await expect(nav.getByRole("link", { name: "Webhooks" }).count()).resolves.toBe(0);
  });

  it(
    "has no serious or critical axe-core violation on these pages, in the light and the dark scheme",
    { timeout: 240_000 },
    async () => {
      const lists = { "mcp-servers": `/orgs/${orgId}/mcp-servers`, tools: `/orgs/${orgId}/tools` };
      // The dashboard follows the operating system's scheme; the browser is told which one it has.
      for (const scheme of ["light", "dark"] as const) {
        await owner.emulateMedia({ colorScheme: scheme });
        for (const path of [...Object.values(lists), ...visited]) {
          await owner.goto(path);
          await owner.locator("main h1").first().waitFor();
          await owner.getByText("Loading…").waitFor({ state: "detached" });
          await expect(owner.locator("html").getAttribute("data-mantine-color-scheme")).resolves.toBe(scheme);
          expect(await seriousViolations(owner), `${path} (${scheme})`).toEqual([]);
          const list = Object.entries(lists).find(([, p]) => p === path);
          if (list) await screenshot(owner, scheme === "light" ? list[0] : `${list[0]}-dark`, dir);
        }
        // With discovery results on screen.
        await owner.goto(`/orgs/${orgId}/mcp-servers/${serverId}`);
        await owner.getByRole("button", { name: "Discover tools" }).click();
        await owner.getByTestId("discovered-tools").waitFor();
        expect(await seriousViolations(owner), scheme).toEqual([]);
        if (scheme === "dark") await screenshot(owner, "mcp-server-discovery-dark", dir);
      }
      await owner.emulateMedia({ colorScheme: "light" });
    },
  );
});
