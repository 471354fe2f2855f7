/**
 * A person's first hour (issue 39), walked in Chromium exactly as a newcomer walks it, through the
 * dashboard only: sign up and verify through the mailed link; the organization and its principal
 * (backup downloaded); their own MCP server at a loopback http URL, its tools discovered and one
 * made a tool; a policy written with examples; an agent, its gateway key and a delegation; the
 * agent's calls BEFORE anything is active; the first activation from the dialog; a personal key
 * bound because the page says no one can approve; a call held for approval, its arguments read and
 * approved on the approval page; the call run; its receipt verified in the browser and by
 * `countersign verify` on the downloaded file. After each first step the overview's setup checklist
 * (issue 42) says that step is done, what is next and what is still blocked; once all are done it is
 * gone, and it can be reopened.
 *
 * The agent is the official MCP SDK client talking to the Gateway's /mcp with the gateway key
 * shown in the browser: that is the agent acting, not a shortcut. The person never calls the Cloud
 * API except through the dashboard's pages. Screenshots go to docs/dashboard/first-hour-*.png with
 * DASHBOARD_SCREENSHOTS=1 (docs/dashboard.md's walk-through shows them).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { sha256Digest } from "../../protocol/src/canonical/index.js";
import { runCountersign } from "../fixtures/cli.js";
import {
  newEmail,
  screenshot,
  signUpInBrowser,
  startDashboardWorld,
  type DashboardWorld,
} from "../fixtures/dashboard.js";
import { mcpAgent } from "../gateway/harness.js";
import { startRefundsServer, type RefundsServer } from "./first-hour-upstream.js";
import { policyTab, typeDocument } from "./setup-refunds.js";

/** Refunds over 100 EUR wait for a person (owner, admin or approver); smaller ones run. */
const POLICY = {
  revision: 1,
  default_effect: "deny",
  rules: [
    {
      id: "large-refunds",
      effect: "require_approval",
      conditions: [{ field: "amount", op: "gt", threshold: "100", currency: "EUR" }],
      approvers: { roles: ["owner", "admin", "approver"], count: 1 },
    },
    {
      id: "small-refunds",
      effect: "allow",
      conditions: [{ field: "amount", op: "lte", threshold: "100", currency: "EUR" }],
    },
  ],
};

let world: DashboardWorld;
let upstream: RefundsServer;
let dir: string;
let page: Page;
let gatewayKey: string;
let agent: Client | undefined;

/** A navigation entry by its label (a live figure such as the waiting approvals may follow it). */
const nav = (name: string) =>
  page
    .getByRole("navigation", { name: "Organization" })
    .getByRole("link", { name: new RegExp(`^${name}(\\s|$)`) })
    .click();
const shot = (name: string) => screenshot(page, `first-hour-${name}`, dir);
/** The setup checklist's steps in order, each with the state word its badge shows. */
const STEPS = [
  "integration",
  "tool",
  "policy",
  "agent",
  "gateway_key",
  "delegation",
  "activation",
  "approver_key",
] as const;
type StepWord = "done" | "to do" | "blocked";
/**
 * Goes to the overview (through the navigation) and reads its setup checklist: every step's badge
 * as `expected` says, in order, and the progress figure counting the done ones.
 */
async function checklistSays(expected: StepWord[]) {
  await nav("Overview");
  await page.getByRole("heading", { name: "Acme Refunds", level: 1 }).waitFor();
  const list = page.getByTestId("setup-checklist");
  await expect
    .poll(
      () =>
        list
          .locator("li[data-step]")
          .evaluateAll((items) =>
            items.map((li) => [li.getAttribute("data-step"), li.querySelector("[data-status]")?.textContent]),
          ),
      { timeout: 20_000 },
    )
    .toEqual(STEPS.map((step, i) => [step, expected[i]]));
  const done = expected.filter((w) => w === "done").length;
  await expect(list.getByTestId("setup-progress").textContent()).resolves.toBe(`${done} of 8 steps done`);
}
/** The link of one step of the checklist (the page that does it). */
const stepLink = (step: (typeof STEPS)[number]) =>
  page.getByTestId("setup-checklist").locator(`li[data-step="${step}"]`).getByRole("link");
/** The text of an MCP tool result's content. */
const textOf = (r: unknown) =>
  CallToolResultSchema.parse(r)
    .content.map((c) => (c.type === "text" ? c.text : ""))
    .join("\n");

beforeAll(async () => {
  // `upstreams`: loopback addresses allowed, as `make run` switches them on.
  world = await startDashboardWorld({ upstreams: true });
  upstream = await startRefundsServer();
  dir = mkdtempSync(join(tmpdir(), "countersign-first-hour-"));
  page = (await world.person()).page;
}, 120_000);
afterAll(async () => {
  await agent?.close();
  await world?.close();
  await upstream?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// A failed step says where the person was and what the page told them.
afterEach(async ({ task }) => {
  if (task.result?.state !== "fail" || !page) return;
  const alerts = await page.getByRole("alert").allTextContents();
  const checklist = await page.getByTestId("setup-checklist").allTextContents();
  process.stderr.write(
    `first hour, "${task.name}" failed on ${page.url()}; alerts: ${JSON.stringify(alerts)}; setup checklist: ${JSON.stringify(checklist)}\n`,
  );
});

describe.sequential("a person's first hour, through the dashboard only", () => {
  it("signs up and verifies the address through the mailed link", { timeout: 60_000 }, async () => {
    await signUpInBrowser(world, page, newEmail("newcomer"), {
      screenshot: (n) => shot(n).then(() => undefined),
    });
    await page.getByRole("heading", { name: "Create an organization" }).waitFor();
  });

  it(
    "creates the organization and its principal, the key backup downloaded first",
    { timeout: 60_000 },
    async () => {
      await page.getByLabel("Name").fill("Acme Refunds");
      await page.getByRole("button", { name: "Create" }).click();
      await page.getByRole("button", { name: "Create the principal" }).click();
      const register = page.getByRole("button", { name: "Register the principal" });
      await expect(register.isDisabled()).resolves.toBe(true);
      const [backup] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("link", { name: "Download the key backup" }).click(),
      ]);
      const backupFile = join(dir, backup.suggestedFilename());
      await backup.saveAs(backupFile);
      // The file the CLI and the operator's Organization Secret read (PKCS#8 PEM).
      expect(readFileSync(backupFile, "utf8")).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
      await register.click();
      await page.getByTestId("principal-held").waitFor();
      await expect(page.getByTestId("principal-kid").textContent()).resolves.toMatch(/^kid_[0-9a-f]{64}$/);
      await shot("principal");
    },
  );

  it(
    "finds the setup checklist on the overview: nothing done, later steps blocked; hidden and reopened",
    { timeout: 60_000 },
    async () => {
      const { todo, blocked } = { todo: "to do", blocked: "blocked" } as const;
      await checklistSays([todo, blocked, todo, blocked, blocked, blocked, blocked, todo]);
      const list = page.getByTestId("setup-checklist");
      await expect(list.locator('li[data-step="tool"]').textContent()).resolves.toContain(
        "Register an MCP server or an integration first.",
      );
      await shot("checklist");
      // Hidden, it stays hidden in this browser until the person asks for it again.
      await list.getByRole("button", { name: "Hide the checklist" }).click();
      await expect(list.count()).resolves.toBe(0);
      await page.reload();
      await page.getByRole("button", { name: "Show the setup checklist" }).waitFor();
      await expect(page.getByTestId("setup-checklist").count()).resolves.toBe(0);
      await page.getByRole("button", { name: "Show the setup checklist" }).click();
      await list.waitFor();
      // The first step's link is the page that does it.
      await stepLink("integration").click();
      await page.getByRole("heading", { name: "MCP servers and integrations" }).waitFor();
    },
  );

  it(
    "adds their own MCP server at a loopback http URL, discovers its tools and makes one a tool",
    { timeout: 90_000 },
    async () => {
      await nav("MCP servers");
      await page.getByRole("heading", { name: "MCP servers and integrations" }).waitFor();
      await page.getByLabel("Name").fill("acme payments");
      await page.getByLabel(/^URL/).fill(upstream.url);
      await page.getByRole("button", { name: "Add MCP server" }).click();
      await page.getByRole("heading", { name: "acme payments" }).waitFor();
      await checklistSays(["done", "to do", "to do", "blocked", "blocked", "blocked", "blocked", "to do"]);
      await nav("MCP servers");
      await page.getByRole("link", { name: "acme payments" }).click();
      await page.getByRole("heading", { name: "acme payments" }).waitFor();
      await page.getByRole("button", { name: "Discover tools" }).click();
      const found = page.getByTestId("discovered-tools");
      await found.waitFor();
      await expect(found.locator("tbody tr td:first-child").allTextContents()).resolves.toEqual([
        "refund_payment",
        "lookup_order",
      ]);
      await shot("discovery");

      await page.getByRole("link", { name: "Make a draft of refund_payment" }).click();
      await page.getByRole("heading", { name: "New tool" }).waitFor();
      await expect(page.getByLabel(/^Upstream tool/).inputValue()).resolves.toBe("refund_payment");
      await page.getByLabel(/^Exposed name/).fill("refund_payment");
      await page.getByLabel(/^Action/).fill("payments.refund");
      await page.getByLabel(/^Amount path/).fill("amount");
      await page.getByLabel(/^Currency, fixed/).fill("EUR");
      await page.getByLabel(/Enable it now/).check();
      await page.getByRole("button", { name: "Create the tool" }).click();
      await page.getByRole("heading", { name: "Tool refund_payment" }).waitFor();
      await page.getByTestId("tool-state").getByText("enabled").waitFor();
      // The schema is the server's own, read at discovery.
      await expect(page.getByLabel("Input schema", { exact: true }).textContent()).resolves.toContain(
        '"order_id"',
      );
      await shot("tool");
      await checklistSays(["done", "done", "to do", "blocked", "blocked", "blocked", "blocked", "to do"]);
    },
  );

  it("writes a policy with examples that pass, saved as draft version 1", { timeout: 90_000 }, async () => {
    await nav("Policies");
    await page.getByRole("heading", { name: "Policies" }).waitFor();
    await page.getByLabel("Name").fill("refunds");
    await page.getByRole("button", { name: "Create the policy" }).click();
    await page.getByRole("heading", { name: /^Policy refunds/ }).waitFor();
    const validation = page.getByTestId("validation");
    await typeDocument(page, JSON.stringify(POLICY, null, 2));
    await expect.poll(() => validation.getAttribute("data-state"), { timeout: 20_000 }).toBe("valid");

    const examples: [string, string, string, string][] = [
      ["small-refund", "30", "allowed", "small-refunds"],
      ["large-refund", "250", "requires_approval", "large-refunds"],
    ];
    for (const [i, [id, amount, outcome, rule]] of examples.entries()) {
      const n = i + 1;
      await page.getByRole("button", { name: "Add an example" }).click();
      await page.getByLabel(`Example ${n} id`).fill(id);
      await page.getByLabel(`Example ${n} tool`).fill("refund_payment");
      await page.getByLabel(`Example ${n} action`).fill("payments.refund");
      await page.getByLabel(`Example ${n} amount`).fill(amount);
      await page.getByLabel(`Example ${n} currency`).fill("EUR");
      await page.getByLabel(`Example ${n} expected outcome`).selectOption(outcome);
      await page.getByLabel(new RegExp(`^Example ${n} expected rule`)).fill(rule);
    }
    const results = page.getByTestId("example-result");
    await expect
      .poll(async () => await results.evaluateAll((cells) => cells.map((c) => c.getAttribute("data-passed"))))
      .toEqual(["true", "true"]);
    await page.getByRole("button", { name: "Save examples" }).click();
    await page.getByText("2 example(s) saved.").waitFor();
    await page.getByLabel("Note for this version (optional)").fill("refunds over 100 EUR wait for a person");
    await page.getByRole("button", { name: "Save as a draft version" }).click();
    await page.getByText("Saved as version 1 (a draft).").waitFor();
    // Saved is not active: the page says so.
    await page.getByTestId("policy-stage").getByText("Draft version 1 — not active").waitFor();
    await shot("policy");
    await checklistSays(["done", "done", "done", "to do", "blocked", "blocked", "to do", "to do"]);
  });

  it("creates an agent under the policy, its gateway key and a delegation", { timeout: 60_000 }, async () => {
    await nav("Agents");
    await page.getByRole("heading", { name: "Agents" }).waitFor();
    await page.getByLabel("Name").fill("refund-bot");
    await page.getByLabel("Policy").selectOption({ label: "refunds" });
    await page.getByRole("button", { name: "Create agent" }).click();
    await page.getByRole("heading", { name: "refund-bot" }).waitFor();
    await checklistSays(["done", "done", "done", "done", "to do", "to do", "to do", "to do"]);
    // Back to the agent through the checklist's link for the next step.
    await stepLink("gateway_key").click();
    await page.getByRole("heading", { name: "refund-bot" }).waitFor();
    await page.getByLabel("Key name").fill("refund-bot laptop");
    await page.getByRole("button", { name: "Create gateway key" }).click();
    gatewayKey = (await page.getByTestId("secret").textContent())!;
    expect(gatewayKey).toMatch(/^svc_live_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
    await checklistSays(["done", "done", "done", "done", "done", "to do", "to do", "to do"]);
    await stepLink("delegation").click();
    await page.getByRole("heading", { name: "refund-bot" }).waitFor();
    await page.getByLabel(/^Permissions/).fill("payments.*");
    await page.getByRole("button", { name: "Sign and grant" }).click();
    await page.getByTestId("delegations").getByText("payments.*").waitFor();
    await shot("agent");
    await checklistSays(["done", "done", "done", "done", "done", "done", "to do", "to do"]);
  });

  it(
    "lets the agent call before any version is active: refused, nothing run",
    { timeout: 60_000 },
    async () => {
      agent = await mcpAgent(world.gateway.gateway.url, gatewayKey);
      const { tools } = await agent.listTools();
      expect(tools.map((t) => t.name)).toEqual(["refund_payment"]);
      for (const [order_id, amount] of [
        ["A-0990", 30],
        ["A-0991", 250],
      ] as const) {
        const r = await agent.callTool({ name: "refund_payment", arguments: { order_id, amount } });
        expect(r.isError, textOf(r)).toBe(true);
        expect(textOf(r)).toContain("NO_POLICY");
      }
      expect(upstream.refunds).toEqual([]);
      // The person sees them in the dashboard as denied decisions.
      await nav("Actions");
      await expect
        .poll(() => page.getByTestId("actions").getByTestId("action-status").allTextContents(), {
          timeout: 20_000,
        })
        .toEqual(["denied", "denied"]);
    },
  );

  it(
    "activates version 1 from the dialog: the first activation, after those calls",
    { timeout: 90_000 },
    async () => {
      await nav("Policies");
      await page.getByTestId("policies").getByRole("link", { name: "refunds", exact: true }).click();
      await page.getByRole("heading", { name: /^Policy refunds/ }).waitFor();
      await policyTab(page, "Versions");
      await page.getByRole("button", { name: "Activate version 1" }).click();
      const dialog = page.getByRole("dialog");
      await expect
        .poll(() => dialog.locator('[data-gate="examples"]').getAttribute("data-state"), { timeout: 20_000 })
        .toBe("passing");
      // Both earlier calls were denied (no active version); under version 1 neither would be.
      await expect
        .poll(() => dialog.locator('[data-gate="impact"]').getAttribute("data-less-restricted"), {
          timeout: 20_000,
        })
        .toBe("2");
      await expect(dialog.getByTestId("activation-summary").textContent()).resolves.toMatch(
        /^First activation/,
      );
      await shot("activation");
      await dialog.getByRole("button", { name: "Activate version 1" }).click();
      await page.getByTestId("notice").getByText("Version 1 is active.").waitFor();
      await page.getByTestId("policy-stage").getByText("enforce").waitFor();
      await expect(dialog.count()).resolves.toBe(0);

      // A small refund now runs at once, on the person's own server.
      const r = await agent!.callTool({
        name: "refund_payment",
        arguments: { order_id: "A-1000", amount: 30 },
      });
      expect(r.isError, textOf(r)).toBeFalsy();
      expect(textOf(r)).toBe("Refunded 30 EUR on order A-1000.");
      expect(upstream.refunds).toEqual([{ order_id: "A-1000", amount: 30 }]);
      await checklistSays(["done", "done", "done", "done", "done", "done", "done", "to do"]);
      // The last step leads where the personal key is bound; back to the policy for the next test.
      await expect(stepLink("approver_key").getAttribute("href")).resolves.toBe("/account");
      await nav("Policies");
      await page.getByTestId("policies").getByRole("link", { name: "refunds", exact: true }).click();
      await page.getByRole("heading", { name: /^Policy refunds/ }).waitFor();
      await policyTab(page, "Versions");
      await page.getByTestId("versions").waitFor();
    },
  );

  it("binds a personal key because the page says no one can approve yet", { timeout: 60_000 }, async () => {
    await page.reload();
    const warning = page.getByTestId("no-approvers");
    await warning.waitFor({ timeout: 20_000 });
    await shot("no-approvers");
    await warning.getByRole("link", { name: "bind your personal key" }).click();
    await page.getByRole("button", { name: "Make and bind a key in this browser" }).click();
    await page.getByTestId("identities").getByText("in this browser").waitFor();
    await shot("account");
    // Back to the policy: the warning is gone.
    await page.goBack();
    await page.getByRole("heading", { name: /^Policy refunds/ }).waitFor();
    await page.getByTestId("versions").waitFor();
    await expect.poll(() => page.getByTestId("no-approvers").count(), { timeout: 20_000 }).toBe(0);
  });

  it(
    "no longer shows the setup checklist once every step is done; it can be reopened",
    { timeout: 60_000 },
    async () => {
      await nav("Overview");
      const reopen = page.getByRole("button", { name: "Show the setup checklist" });
      await reopen.waitFor({ timeout: 20_000 });
      await expect(page.getByTestId("setup-checklist").count()).resolves.toBe(0);
      await reopen.click();
      await expect
        .poll(() => page.getByTestId("setup-checklist").locator('li[data-step] [data-status="done"]').count())
        .toBe(8);
      await expect(page.getByTestId("setup-progress").textContent()).resolves.toBe("8 of 8 steps done");
      await shot("checklist-done");
      await page.getByRole("button", { name: "Hide the checklist" }).click();
      await reopen.waitFor();
    },
  );

  it(
    "holds a large refund, shows its arguments on the approval page, approves it, and the call runs",
    { timeout: 120_000 },
    async () => {
      const args = { order_id: "A-1001", amount: 250, reason: "parcel arrived damaged" };
      // The agent waits for the person's decision (service/wait-seconds), as an MCP client does.
      const answered = agent!.callTool(
        {
          name: "refund_payment",
          arguments: args,
          _meta: { "service/idempotency-key": "refund-A-1001", "service/wait-seconds": 55 },
        },
        undefined,
        { timeout: 90_000 },
      );

      await nav("Approvals");
      const queue = page.getByTestId("approval-queue");
      await queue.waitFor({ timeout: 20_000 });
      await queue.getByText("250 EUR").waitFor();
      await shot("approvals");
      await queue.getByRole("link", { name: "refund-bot" }).click();
      const details = page.getByTestId("call-details");
      await details.getByText("payments.refund").waitFor();
      await expect(details.textContent()).resolves.toContain("250 EUR");
      // The exact call the person signs for: its arguments, not only their digest.
      const shown = page.getByTestId("call-arguments");
      await expect(shown.getAttribute("data-state")).resolves.toBe("verified");
      for (const [name, value] of [
        ["order_id", '"A-1001"'],
        ["amount", "250"],
        ["reason", '"parcel arrived damaged"'],
      ])
        await expect(shown.locator(`[data-argument="${name}"] td`).textContent()).resolves.toBe(value);
      expect(upstream.refunds).toHaveLength(1);
      await shot("approval");
      await page.getByRole("button", { name: "Approve" }).click();
      await page.getByTestId("approval-status").getByText("approved").waitFor();

      const result = await answered;
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(textOf(result)).toBe("Refunded 250 EUR on order A-1001.");
      expect(upstream.refunds).toEqual([{ order_id: "A-1000", amount: 30 }, args]);

      // The person sees it ran.
      await nav("Actions");
      const row = page
        .getByTestId("actions")
        .locator("tr", { hasText: "250 EUR" })
        .filter({ hasText: "succeeded" });
      await row.waitFor({ timeout: 20_000 });
      await row.getByRole("link").click();
      await page.getByRole("heading", { name: "refund-bot: refund_payment" }).waitFor();
      await expect(page.getByTestId("action-status").textContent()).resolves.toBe("succeeded");
      await shot("action");
    },
  );

  it(
    "verifies the call's receipt in the browser and with the CLI on the downloaded file",
    { timeout: 90_000 },
    async () => {
      // The action page links its receipt.
      await page.getByRole("link", { name: /^[0-9a-f-]{36}$/ }).click();
      const chain = page.getByTestId("chain");
      await chain.getByText(/^APPROVAL/).waitFor();
      await chain.getByText(/^RESULT/).waitFor();
      await page.getByRole("button", { name: "Fetch the bundle" }).click();
      const requests: string[] = [];
      page.on("request", (r) => requests.push(r.url()));
      await page.getByRole("button", { name: "Verify in this browser" }).click();
      await expect(page.getByTestId("browser-verification").getAttribute("data-valid")).resolves.toBe("true");
      expect(requests).toEqual([]); // verified with no request to any server
      await page.getByTestId("browser-verification").scrollIntoViewIfNeeded();
      await shot("receipt");
      const [bundle] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("link", { name: /^Download receipt-/ }).click(),
      ]);
      const receiptFile = join(dir, bundle.suggestedFilename());
      await bundle.saveAs(receiptFile);
      const recorded = await page
        .locator("dd code")
        .filter({ hasText: /^sha256:/ })
        .first()
        .textContent();
      expect(sha256Digest(readFileSync(receiptFile))).toBe(recorded);

      const run = await runCountersign(["verify", receiptFile]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^VALID/);
      expect(run.stdout).toContain("refund_payment / payments.refund");
      for (const step of ["TASK", "PROPOSAL", "APPROVAL", "EXECUTION", "RESULT"])
        expect(run.stdout).toContain(step);
    },
  );
});
