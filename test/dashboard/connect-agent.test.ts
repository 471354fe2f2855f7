/**
 * Issue 42 point 3 in Chromium: a person makes an agent and its gateway key in the dashboard, and
 * the page shows the Gateway's address (COUNTERSIGN_GATEWAY_URL, as the api was told) with
 * snippets that carry the new key this once. The curl snippet, read from the page exactly as shown
 * and run by /bin/sh, gets a decision from the real Gateway (parsed with the wire's schema); the
 * TypeScript snippet runs as a Node program with the official MCP SDK and lists the agent's tools;
 * the mcp.json entry's URL and header are what the Gateway's /mcp accepts. After a reload the key is
 * gone from the page and the snippets show its placeholder.
 *
 * Set up outside the person's steps (not what this test is about): the decision-only refund tool
 * and the policy (setup-refunds.ts, through the owner's own browser session).
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inspect } from "node:util";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { z } from "zod";
import { authorizeAnswerSchema } from "../../protocol/src/wire/index.js";
import { buildApiServer } from "../../api/src/server.js";
import { smtpMailer } from "../../api/src/mail/smtp.js";
import { createLogger } from "../../core/src/server/index.js";
import { freePort } from "../../core/src/store/index.js";
import {
  DASHBOARD_DIR,
  screenshot,
  startDashboardWorld,
  type DashboardWorld,
} from "../fixtures/dashboard.js";
import { ownerOfNewOrganization } from "./members.js";
import { configureDecisionOnlyRefunds } from "./setup-refunds.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
let world: DashboardWorld;
let dir: string;
let owner: Page;
let orgId: string;
/** The agent's page, path only: the first test makes the agent. */
let agentPath = "";
beforeAll(async () => {
  world = await startDashboardWorld();
  // Under the repository, so the TypeScript snippet's imports resolve from its node_modules.
  mkdirSync(join(repo, ".cache"), { recursive: true });
  dir = mkdtempSync(join(repo, ".cache", "connect-agent-"));
  ({ owner, orgId } = await ownerOfNewOrganization(world, "Connect Inc", { principal: true }));
  await configureDecisionOnlyRefunds(owner, orgId);
}, 180_000);
afterAll(async () => {
  await world?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs a program; its exit code and what it wrote. */
function run(
  file: string,
  args: string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** The mcp.json entry desktop MCP clients read, as the page shows it. */
const mcpJsonSchema = z.object({
  mcpServers: z.object({
    countersign: z.object({
      type: z.literal("http"),
      url: z.string(),
      headers: z.object({ Authorization: z.string() }),
    }),
  }),
});

it(
  "shows the Gateway's address and snippets with the new key; the curl snippet as shown gets a decision and the MCP ones reach /mcp",
  { timeout: 240_000 },
  async () => {
    const gatewayUrl = world.gateway.gateway.url;
    // The person's steps: an agent under the policy, a delegation, a gateway key.
    await owner.goto(`/orgs/${orgId}/agents`);
    await owner.getByLabel("Name").fill("refund-bot");
    await owner.getByLabel("Policy").selectOption({ label: "refunds" });
    await owner.getByRole("button", { name: "Create agent" }).click();
    await owner.getByRole("heading", { name: "refund-bot", level: 1 }).waitFor();
    agentPath = new URL(owner.url()).pathname;
    await owner.getByLabel(/^Permissions/).fill("payments.*");
    await owner.getByRole("button", { name: "Sign and grant" }).click();
    await owner.getByTestId("delegations").getByText("payments.*").waitFor();

    // Before any key: the address, and a placeholder where the key goes.
    const connect = owner.getByTestId("connect-agent");
    await expect(connect.getByTestId("gateway-url").textContent()).resolves.toBe(gatewayUrl);
    await expect.poll(() => connect.getByTestId("snippet-curl").textContent()).toContain("<GATEWAY_KEY>");

    await owner.getByLabel("Key name").fill("refund-bot laptop");
    await owner.getByRole("button", { name: "Create gateway key" }).click();
    const key = (await owner.getByTestId("secret").textContent())!;
    expect(key).toMatch(/^svc_live_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
    await connect.getByText("The new key is filled in below").waitFor();

    // The curl snippet, exactly as the page shows it, run by a shell: a decision, per the spec.
    const curl = (await connect.getByTestId("snippet-curl").textContent())!;
    expect(curl).toContain(`${gatewayUrl}/v1/authorize`);
    expect(curl).toContain(`Bearer ${key}`);
    const answered = await run("/bin/sh", ["-c", curl], dir);
    expect(answered.code, answered.stderr).toBe(0);
    const decision = authorizeAnswerSchema.parse(JSON.parse(answered.stdout));
    // The example's refund (amount 10 EUR) is within the policy's small-refunds rule.
    expect(decision).toMatchObject({ allowed: true, status: "authorized", decision: "allow" });

    // The TypeScript snippet, as shown, is a Node program with the official MCP SDK: it lists the agent's tools.
    await connect.getByRole("tab", { name: "TypeScript" }).click();
    const typescript = (await connect.getByTestId("snippet-typescript").textContent())!;
    expect(typescript).toContain(`new URL("${gatewayUrl}/mcp")`);
    expect(typescript).toContain(`Bearer ${key}`);
    writeFileSync(join(dir, "agent.mjs"), typescript);
    const listed = await run(process.execPath, ["agent.mjs"], dir);
    expect(listed.code, listed.stderr).toBe(0);

    // The mcp.json entry: its URL and Authorization header are what the Gateway's /mcp accepts.
    await connect.getByRole("tab", { name: "mcp.json" }).click();
    const entry = mcpJsonSchema.parse(
      JSON.parse((await connect.getByTestId("snippet-mcp-json").textContent())!),
    ).mcpServers.countersign;
    expect(entry).toEqual({
      type: "http",
      url: `${gatewayUrl}/mcp`,
      headers: { Authorization: `Bearer ${key}` },
    });
    const client = new Client({ name: "connect-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.headers } }),
    );
    const { tools } = await client.listTools();
    await client.close();
    // The program printed the same list the SDK got here.
    expect(listed.stdout).toBe(`${inspect(tools.map((t) => t.name))}\n`);
    // The header is what gets it in: the same entry with another key is refused.
    const stranger = new Client({ name: "connect-test", version: "1.0.0" });
    await expect(
      stranger.connect(
        new StreamableHTTPClientTransport(new URL(entry.url), {
          requestInit: {
            headers: { Authorization: `Bearer ${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}` },
          },
        }),
      ),
    ).rejects.toThrow(/no valid gateway key/);

    // Shown once: after a reload the page holds no key, and the snippets say where it goes.
    await owner.reload();
    await owner.getByRole("heading", { name: "refund-bot", level: 1 }).waitFor();
    await expect.poll(() => connect.getByTestId("snippet-curl").textContent()).toContain("<GATEWAY_KEY>");
    await connect.getByTestId("connect-key-note").waitFor();
    expect(await owner.content()).not.toContain(key);
    await expect(owner.getByTestId("secret").count()).resolves.toBe(0);
    // The picture for docs/dashboard.md: the panel as every later visit shows it (no live key in a file).
    await connect.scrollIntoViewIfNeeded();
    await screenshot(owner, "connect-agent", dir);
  },
);

it(
  "says where to find the Gateway's address when the installation did not give one, and shows no guess",
  { timeout: 120_000 },
  async () => {
    expect(agentPath).toMatch(/^\/orgs\/[^/]+\/agents\/[^/]+$/);
    // A second api process of the same installation, started without COUNTERSIGN_GATEWAY_URL.
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const mailer = smtpMailer(world.smtp.url, "Countersign <no-reply@countersign.test>");
    const app = buildApiServer({
      pool: world.db.pool,
      logger: createLogger("api", "silent"),
      dashboardDir: DASHBOARD_DIR,
      cloud: {
        keyHashSecret: world.gateway.keyHashSecret,
        dashboardOrigin: origin,
        defaultPlan: "enterprise",
        mailer,
        trustedProxyHops: 0,
      },
    });
    await app.listen({ host: "127.0.0.1", port });
    try {
      // The same person, signed in (cookies belong to the host, not the port), opens the agent there.
      await owner.goto(`${origin}${agentPath}`);
      await owner.getByRole("heading", { name: "refund-bot", level: 1 }).waitFor();
      const connect = owner.getByTestId("connect-agent");
      await expect(connect.getByTestId("gateway-url-unknown").textContent()).resolves.toContain(
        "Ask whoever runs Countersign for the Gateway's public address",
      );
      await expect(connect.getByTestId("gateway-url").count()).resolves.toBe(0);
      const curl = (await connect.getByTestId("snippet-curl").textContent())!;
      expect(curl).toContain("'<GATEWAY_URL>/v1/authorize'");
      expect(curl).not.toContain(world.gateway.gateway.url);
    } finally {
      await app.close();
      mailer.close?.();
    }
  },
);
