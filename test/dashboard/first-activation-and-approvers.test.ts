/**
 * Issue 39 in Chromium, through the dashboard: a first activation after the agent's calls (the
 * dialog's preview is the figure the service checks, so it activates instead of looping on
 * IMPACT_CHANGED), the copy of a first activation and of a draft-only policy, a policy whose held
 * calls no one can approve shown with the step that fixes it (and gone once the person takes it),
 * and the approval page showing the exact arguments of the call, long values collapsed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import {
  newEmail,
  screenshot,
  signUpInBrowser,
  startDashboardWorld,
  type DashboardWorld,
} from "../fixtures/dashboard.js";
import { sessionRequest } from "./setup-refunds.js";

let world: DashboardWorld;
let dir: string;
let owner: Page;
let orgId: string;
let policyId: string;
let agentId: string;
let gatewayKey: string;

/** Refunds over 100 EUR held for an owner or admin; up to 100 EUR allowed; the rest denied. */
const document = {
  revision: 1,
  default_effect: "deny",
  rules: [
    {
      id: "large-refunds",
      effect: "require_approval",
      conditions: [{ field: "amount", op: "gt", threshold: "100", currency: "EUR" }],
      approvers: { roles: ["owner", "admin"], count: 1 },
    },
    {
      id: "small-refunds",
      effect: "allow",
      conditions: [{ field: "amount", op: "lte", threshold: "100", currency: "EUR" }],
    },
  ],
};

const refund = (args: Record<string, unknown>, idempotencyKey: string) =>
  world.gateway.authorize(gatewayKey, {
    tool: "refund_payment",
    arguments: args,
    idempotency_key: idempotencyKey,
  });

beforeAll(async () => {
  world = await startDashboardWorld();
  dir = mkdtempSync(join(tmpdir(), "countersign-first-activation-"));
  owner = (await world.person()).page;
  await signUpInBrowser(world, owner, newEmail("owner"));
  await owner.getByLabel("Name").fill("First Activation Inc");
  await owner.getByRole("button", { name: "Create" }).click();
  await owner.getByRole("button", { name: "Create the principal" }).click();
  await owner.getByRole("link", { name: "Download the key backup" }).click();
  await owner.getByRole("button", { name: "Register the principal" }).click();
  await owner.getByTestId("principal-held").waitFor();
  orgId = new URL(owner.url()).pathname.split("/")[2]!;
  // What other suites make through their own pages: a decision-only refund tool and the policy's draft.
  const integration = (
    await sessionRequest(owner, "POST", `/orgs/${orgId}/mcp-servers`, {
      kind: "decision_only",
      name: "billing system",
    })
  ).mcp_server;
  const tool = (
    await sessionRequest(owner, "POST", `/orgs/${orgId}/tools`, {
      mcp_server_id: integration.id,
      exposed_name: "refund_payment",
      action: "payments.refund",
      amount_mapping: { amount_path: "amount", currency: "EUR" },
      enabled: false,
    })
  ).tool;
  await sessionRequest(owner, "POST", `/orgs/${orgId}/tools/${tool.id}/authorize`, {
    binding_digest: tool.binding.digest,
  });
  await sessionRequest(owner, "PATCH", `/orgs/${orgId}/tools/${tool.id}`, { enabled: true });
  policyId = (await sessionRequest(owner, "POST", `/orgs/${orgId}/policies`, { name: "refunds", document }))
    .policy.id;
  agentId = (
    await sessionRequest(owner, "POST", `/orgs/${orgId}/agents`, { name: "refund-bot", policy_id: policyId })
  ).agent.id;
  gatewayKey = (
    await sessionRequest(owner, "POST", `/orgs/${orgId}/api-keys`, {
      name: "bot",
      kind: "gateway",
      agent_id: agentId,
    })
  ).secret;
  await owner.goto(`/orgs/${orgId}/agents/${agentId}`);
  await owner.getByLabel(/^Permissions/).fill("payments.*");
  await owner.getByRole("button", { name: "Sign and grant" }).click();
  await owner.getByTestId("delegations").getByText("payments.*").waitFor();
}, 240_000);
afterAll(async () => {
  await world?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a person's first hour with a policy", () => {
  it(
    "activates a first version after the agent's calls from the dialog, reads the no-approver warning, binds a key as it says, and approves a held call reading its exact arguments",
    { timeout: 240_000 },
    async () => {
      // A draft only: the policy says so, not "none".
      await owner.goto(`/orgs/${orgId}/policies`);
      await owner.getByTestId("policies").getByText("Draft version 1 — not active").waitFor();
      await owner.getByTestId("row-no-approvers").waitFor();
      await owner.getByTestId("policies").getByRole("link", { name: "refunds" }).click();
      await expect(owner.getByTestId("policy-stage").textContent()).resolves.toBe(
        "Draft version 1 — not active",
      );

      // The natural first try: calls before any version is active, all denied NO_POLICY.
      for (const [order, amount] of [
        ["R-1", 50],
        ["R-2", 70],
        ["R-3", 500],
      ] as const) {
        const r = await refund({ amount, order }, order);
        expect(r.body).toMatchObject({ status: "denied", code: "NO_POLICY" });
      }

      // Already on the draft: once active, no one could approve its held calls (no one has a key).
      const warning = owner.getByTestId("no-approvers");
      await warning.waitFor();
      await expect(warning.textContent()).resolves.toContain(
        "would hold once activated by rule large-refunds",
      );

      // First activation from Versions: the preview's figure is the one the service checks.
      await owner.getByRole("navigation", { name: "Policy" }).getByRole("link", { name: "Versions" }).click();
      await owner.getByRole("button", { name: "Activate version 1" }).click();
      const dialog = owner.getByRole("dialog");
      await expect
        .poll(() => dialog.locator('[data-gate="impact"]').getAttribute("data-less-restricted"), {
          timeout: 20_000,
        })
        .toBe("3");
      await expect(dialog.getByTestId("activation-summary").textContent()).resolves.toBe(
        "First activation: version 1 becomes the version in force for every agent of refunds. No version is active yet, so every call of these agents is denied (NO_POLICY) until you activate one.",
      );
      const impactText = await dialog.locator('[data-gate="impact"]').textContent();
      expect(impactText).toContain(
        "No version is active, so these agents' calls are denied now; under version 1, 3 of 3 recent call(s) of the last 7 days would be allowed or held for approval.",
      );
      expect(await dialog.textContent()).not.toMatch(/no version is no longer|Replaces no version/);
      await expect(dialog.locator('[data-gate="expected-active"]').textContent()).resolves.toBe(
        "Active version. Activation is refused if another version is activated before you confirm.",
      );
      await screenshot(owner, "policy-first-activation", dir);
      await dialog.getByRole("button", { name: "Activate version 1" }).click();
      await owner.getByTestId("notice").getByText("Version 1 is active.").waitFor();
      expect(await owner.getByTestId("impact-changed").count()).toBe(0);
      await expect
        .poll(() => owner.getByTestId("policy-stage").textContent(), { timeout: 20_000 })
        .toBe("enforce");

      // Now it holds, and still no one can approve: the warning says so and the call is denied.
      await expect
        .poll(() => warning.textContent(), { timeout: 20_000 })
        .toContain("No one can approve the calls that policy refunds holds by rule large-refunds");
      const early = await refund({ amount: 500, order: "R-4" }, "R-4");
      expect(early.body).toMatchObject({ status: "denied", code: "NO_APPROVERS" });

      // The agent's page says it of its policy, and its dry run too, with the step.
      await owner.goto(`/orgs/${orgId}/agents/${agentId}`);
      await owner.getByTestId("no-approvers").waitFor();
      await owner.getByLabel("Tool").fill("refund_payment");
      await owner.getByLabel("Arguments (JSON)").fill('{"amount": 500, "order": "R-dry"}');
      await owner.getByRole("button", { name: "Dry run" }).click();
      await expect(owner.getByTestId("dry-run-no-approvers").textContent()).resolves.toContain(
        "no one can approve it now, so it is denied (NO_APPROVERS)",
      );

      // The overview and the approvals page say it too; nothing waits there.
      await owner.goto(`/orgs/${orgId}`);
      await owner.getByTestId("no-approvers").waitFor();
      await owner.goto(`/orgs/${orgId}/approvals`);
      await owner.getByTestId("queue-empty").waitFor();
      await owner.getByTestId("no-approvers").waitFor();
      await screenshot(owner, "approvals-no-approvers", dir);
      // The one step, as the page says it: bind a personal key.
      await owner.getByTestId("no-approvers").getByRole("link", { name: "bind your personal key" }).click();
      await owner.getByRole("button", { name: "Make and bind a key in this browser" }).click();
      await owner.getByTestId("identities").getByText("in this browser").waitFor();
      await owner.goto(`/orgs/${orgId}/approvals`);
      await owner.getByTestId("queue-empty").waitFor();
      await expect.poll(() => owner.getByTestId("no-approvers").count(), { timeout: 20_000 }).toBe(0);
      await owner.goto(`/orgs/${orgId}/policies/${policyId}`);
      await owner.getByTestId("policy-stage").getByText("enforce").waitFor();
      expect(await owner.getByTestId("no-approvers").count()).toBe(0);

      // The denial before the key stands; a new call is held and its arguments are shown as signed.
      const replay = await refund({ amount: 500, order: "R-4" }, "R-4");
      expect(replay.body).toMatchObject({ status: "denied", code: "NO_APPROVERS" });
      const note = `Customer wrote: ${"the parcel never arrived, ".repeat(12)}please refund.`;
      const held = await refund(
        { amount: 500, order: "R-5", customer: { id: "c-42", email: "ann@example.test" }, note },
        "R-5",
      );
      expect(held.body).toMatchObject({ status: "approval_pending" });
      await owner.goto(`/orgs/${orgId}/approvals`);
      await owner.getByTestId("approval-queue").getByRole("link", { name: "refund-bot" }).click();
      const args = owner.getByTestId("call-arguments");
      await expect.poll(() => args.getAttribute("data-state"), { timeout: 20_000 }).toBe("verified");
      await expect(owner.getByTestId("call-amount").textContent()).resolves.toBe("500 EUR");
      await expect(args.locator('[data-argument="order"] pre').textContent()).resolves.toBe('"R-5"');
      await expect(args.locator('[data-argument="amount"] pre').textContent()).resolves.toBe("500");
      await expect(args.locator('[data-argument="customer"] pre').textContent()).resolves.toBe(
        '{\n  "email": "ann@example.test",\n  "id": "c-42"\n}',
      );
      // The long note is collapsed with how much is hidden, never cut silently; it opens in full.
      const noteValue = args.locator('[data-argument="note"] pre');
      const shown = (await noteValue.textContent())!;
      expect(shown.endsWith("…")).toBe(true);
      expect(shown.length).toBeLessThan(JSON.stringify(note).length);
      const more = JSON.stringify(note).length - (shown.length - 1);
      await args.getByRole("button", { name: `Show all of note (${more} more characters)` }).click();
      await expect(noteValue.textContent()).resolves.toBe(JSON.stringify(note));
      await screenshot(owner, "approval-arguments", dir);

      await owner.getByRole("button", { name: "Approve" }).click();
      await expect
        .poll(() => owner.getByTestId("approval-status").textContent(), { timeout: 20_000 })
        .toBe("approved");
      const after = await refund(
        { amount: 500, order: "R-5", customer: { id: "c-42", email: "ann@example.test" }, note },
        "R-5",
      );
      expect(after.body).toMatchObject({ allowed: true, status: "authorized" });
    },
  );
});
