/**
 * The policy pages in Chromium against the real services: a policy edited in the code editor
 * with live validation and examples run against the editor's text, then taken from draft through
 * Shadow, Require approval and Enforce, a failing example blocking activation until acknowledged,
 * and a rollback with `supersede_pending` closing a pending approval; what a developer and a
 * viewer are shown; keyboard use of the editor and an axe-core check of every policy page.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { policySchema, policyVersionSchema } from "../../protocol/src/wire/index.js";
import {
  mailedLink,
  newEmail,
  screenshot,
  signUpInBrowser,
  startDashboardWorld,
  type DashboardWorld,
} from "../fixtures/dashboard.js";
import { policyTab, refundsOrganization, sessionRequest, typeDocument } from "./setup-refunds.js";

let world: DashboardWorld;
let dir: string;
let orgId: string;
let policyId: string;
let gatewayKey: string;
let owner: Page;
let ownerEmail: string;

/** Version 2: refunds over 1000 EUR denied, the rest as version 1 decides them. */
const version2 = {
  revision: 1,
  default_effect: "deny",
  rules: [
    {
      id: "huge-refunds",
      effect: "deny",
      conditions: [{ field: "amount", op: "gt", threshold: "1000", currency: "EUR" }],
    },
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

async function joinAs(role: "developer" | "viewer"): Promise<Page> {
  const email = newEmail(role);
  await sessionRequest(owner, "POST", `/orgs/${orgId}/invitations`, { email, role });
  const link = await mailedLink(world, email, "invitations/accept");
  const { page } = await world.person();
  await signUpInBrowser(world, page, email);
  await page.goto(link);
  await page.getByRole("button", { name: "Accept the invitation" }).click();
  await page.getByTestId("role").getByText(role).waitFor();
  return page;
}

const stageOf = (page: Page) => page.getByTestId("rollout-stage").getAttribute("data-stage");

beforeAll(async () => {
  world = await startDashboardWorld();
  dir = mkdtempSync(join(tmpdir(), "countersign-policies-"));
  ({ owner, ownerEmail, orgId, policyId, gatewayKey } = await refundsOrganization(world, "Policies Inc"));
}, 240_000);
afterAll(async () => {
  await world?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("rollout", () => {
  it(
    "takes a policy from draft through shadow, require approval and enforce, then rolls back closing a pending approval",
    { timeout: 240_000 },
    async () => {
      await owner.goto(`/orgs/${orgId}/policies`);
      await owner.getByTestId("policies").getByText("enforce").waitFor();
      await screenshot(owner, "policies", dir);
      await owner.getByRole("link", { name: "refunds" }).click();
      await owner.getByRole("heading", { name: /^Policy refunds/ }).waitFor();
      const validation = owner.getByTestId("validation");
      await expect.poll(() => validation.getAttribute("data-state"), { timeout: 20_000 }).toBe("valid");

      // Live validation: an invalid document is refused with its issue, by the Cloud API.
      await typeDocument(owner, JSON.stringify({ revision: 1, default_effect: "maybe", rules: [] }, null, 2));
      await expect.poll(() => validation.getAttribute("data-state"), { timeout: 20_000 }).toBe("invalid");
      await expect(owner.getByTestId("issues").textContent()).resolves.toContain("default_effect");
      await expect(owner.getByRole("button", { name: "Save as a draft version" }).isDisabled()).resolves.toBe(
        true,
      );
      await typeDocument(owner, JSON.stringify(version2, null, 2));
      await expect.poll(() => validation.getAttribute("data-state"), { timeout: 20_000 }).toBe("valid");

      // An example for version 2, passing against the editor's text before anything is saved.
      await owner.getByRole("button", { name: "Add an example" }).click();
      await owner.getByLabel("Example 1 id").fill("huge-refund");
      await owner.getByLabel("Example 1 tool").fill("refund_payment");
      await owner.getByLabel("Example 1 action").fill("payments.refund");
      await owner.getByLabel("Example 1 amount").fill("5000");
      await owner.getByLabel("Example 1 currency").fill("EUR");
      await owner.getByLabel("Example 1 expected outcome").selectOption("denied");
      await owner.getByLabel(/^Example 1 expected rule/).fill("huge-refunds");
      const result = owner.getByTestId("example-result").first();
      await expect.poll(() => result.getAttribute("data-passed"), { timeout: 20_000 }).toBe("true");
      // The same example read against a rule version 2 does not decide it with: fails, at once.
      await owner.getByLabel(/^Example 1 expected rule/).fill("large-refunds");
      await expect.poll(() => result.getAttribute("data-passed"), { timeout: 20_000 }).toBe("false");
      await owner.getByLabel(/^Example 1 expected rule/).fill("huge-refunds");
      await expect.poll(() => result.getAttribute("data-passed"), { timeout: 20_000 }).toBe("true");
      expect((await sessionRequest(owner, "GET", `/orgs/${orgId}/policies/${policyId}`)).examples).toEqual(
        [],
      );
      await screenshot(owner, "policy-editor", dir);
      await owner.getByRole("button", { name: "Save examples" }).click();
      await owner.getByText("1 example(s) saved.").waitFor();
      await owner.getByLabel("Note for this version (optional)").fill("deny refunds over 1000 EUR");
      await owner.getByRole("button", { name: "Save as a draft version" }).click();
      await owner.getByText("Saved as version 2 (a draft).").waitFor();

      // Versions and a diff between two of them.
      await policyTab(owner, "Versions");
      await owner
        .getByTestId("versions")
        .getByRole("row")
        .filter({ has: owner.locator('[data-version="2"][data-status="draft"]') })
        .getByText("deny refunds over 1000 EUR")
        .waitFor();
      await owner.getByTestId("diff").getByText("huge-refunds").waitFor();
      await screenshot(owner, "policy-versions", dir);

      // Shadow: version 2 evaluated beside version 1, its report read.
      await policyTab(owner, "Rollout");
      await expect.poll(() => stageOf(owner), { timeout: 20_000 }).toBe("enforce");
      await owner.getByLabel("Version to shadow").selectOption({ label: "Version 2 (draft)" });
      await owner.getByRole("button", { name: "Start shadow" }).click();
      await expect.poll(() => stageOf(owner), { timeout: 20_000 }).toBe("shadow");
      const report = owner.getByTestId("simulation-report");
      await expect
        .poll(async () => report.locator('[data-count="more_restricted"] dd').textContent(), {
          timeout: 20_000,
        })
        .toBe("1");
      // The report's pictures say the figures the Cloud API gave: calls by effect on each side, and how they changed.
      const shadowReport = (
        await sessionRequest(owner, "GET", `/orgs/${orgId}/policies/${policyId}/shadow/report?window_days=7`)
      ).report;
      const words = { allow: "allow", require_approval: "require approval", deny: "deny" } as const;
      const effects = Object.keys(words) as (keyof typeof words)[];
      const side = (name: string, count: (e: keyof typeof words) => number) =>
        `${name}: ${effects.map((e) => `${words[e]} ${count(e)}`).join(", ")}.`;
      const expectedEffects = [
        side("Active version 1", (e) => effects.reduce((n, c) => n + shadowReport.matrix[e][c], 0)),
        side("Shadow version 2", (e) => shadowReport.candidate_effects[e]),
      ].join(" ");
      // Under version 1 the 50 EUR call was allowed and the 500 and 5000 EUR ones held; version 2 denies 5000.
      expect(expectedEffects).toBe(
        "Active version 1: allow 1, require approval 2, deny 0. Shadow version 2: allow 1, require approval 1, deny 1.",
      );
      await expect.poll(() => report.getByTestId("effects-summary").textContent()).toBe(expectedEffects);
      const c = shadowReport.counts;
      await expect(report.getByTestId("changes-summary").textContent()).resolves.toBe(
        `Of ${c.recorded} recorded call(s): same ${c.same}, less restricted ${c.less_restricted}, more restricted ${c.more_restricted}, decided by another rule ${c.other_rule}, other approvers ${c.other_approvers}, not evaluable ${c.not_evaluable}.`,
      );
      // Both pictures are drawn: the bars (one per effect and side) and the donut.
      await expect
        .poll(() => report.getByTestId("report-charts").locator(".recharts-bar-rectangle").count())
        .toBeGreaterThanOrEqual(4);
      await expect(report.getByTestId("report-charts").locator(".recharts-pie-sector").count()).resolves.toBe(
        [
          c.same,
          c.less_restricted,
          c.more_restricted,
          c.other_rule,
          c.other_approvers,
          c.not_evaluable,
        ].filter((n: number) => n > 0).length,
      );
      await screenshot(owner, "policy-shadow", dir);

      // Require approval: the copy of version 2; the example fails under it and blocks until acknowledged.
      await owner.getByRole("button", { name: "Require approval for what version 2 would deny" }).click();
      const dialog = owner.getByRole("dialog");
      await dialog.getByRole("heading", { name: /^Require approval: activate version 3/ }).waitFor();
      await expect
        .poll(() => dialog.locator('[data-gate="examples"]').getAttribute("data-state"), { timeout: 20_000 })
        .toBe("failing");
      const activate3 = dialog.getByRole("button", { name: "Activate version 3" });
      await expect(activate3.isDisabled()).resolves.toBe(true);
      await expect(dialog.locator('[data-gate="impact"]').getAttribute("data-less-restricted")).resolves.toBe(
        "0",
      );
      await screenshot(owner, "policy-activation", dir);
      await dialog.getByLabel("I acknowledge the failing examples and activate anyway").check();
      await activate3.click();
      await owner.getByTestId("notice").getByText("Version 3 is active.").waitFor();
      await expect.poll(() => stageOf(owner), { timeout: 20_000 }).toBe("require_approval");
      const held = await world.gateway.authorize(gatewayKey, {
        tool: "refund_payment",
        arguments: { amount: 5000, order: "P-held-by-copy" },
        idempotency_key: "P-held-by-copy",
      });
      expect(held.body, JSON.stringify(held.body)).toMatchObject({ status: "approval_pending" });

      // Enforce version 2: its examples pass; the shadow is cleared.
      await owner.getByRole("button", { name: "Enforce version 2" }).click();
      await expect
        .poll(() => dialog.locator('[data-gate="examples"]').getAttribute("data-state"), { timeout: 20_000 })
        .toBe("passing");
      await dialog.getByRole("button", { name: "Activate version 2" }).click();
      await owner.getByTestId("notice").getByText("Version 2 is active; the shadow was cleared.").waitFor();
      await expect.poll(() => stageOf(owner), { timeout: 20_000 }).toBe("enforce");
      const denied = await world.gateway.authorize(gatewayKey, {
        tool: "refund_payment",
        arguments: { amount: 5000, order: "P-denied" },
        idempotency_key: "P-denied",
      });
      expect(denied.body).toMatchObject({ allowed: false, status: "denied" });

      // A pending approval under version 2, closed by a rollback with supersede_pending.
      const pending = await world.gateway.authorize(gatewayKey, {
        tool: "refund_payment",
        arguments: { amount: 500, order: "P-pending" },
        idempotency_key: "P-pending",
      });
      expect(pending.body).toMatchObject({ status: "approval_pending" });
      await owner.getByRole("button", { name: "Roll back…" }).click();
      // SPEC 3.6 keeps supersede_all to the API: the dialog offers keep and supersede_pending only.
      await expect(
        dialog
          .locator("input[name=open_actions]")
          .evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value)),
      ).resolves.toEqual(["keep", "supersede_pending"]);
      await dialog.getByRole("combobox").selectOption({ label: "Version 1" });
      await dialog.getByLabel(/^Close pending approvals: the agents must ask again/).check();
      await screenshot(owner, "policy-rollback", dir);
      await dialog.getByRole("button", { name: "Roll back" }).click();
      const outcome = owner.getByText(/^Rolled back: /).or(dialog.getByRole("alert"));
      await outcome.waitFor();
      await expect(outcome.textContent()).resolves.toMatch(
        // The two held here, and the two refunds over 100 EUR held under version 1 before the test.
        /^Rolled back: version 1 restored as version 4; 4 open action/,
      );
      for (const id of [pending.body.approval_request_id, held.body.approval_request_id])
        expect((await sessionRequest(owner, "GET", `/orgs/${orgId}/approvals/${id}`)).approval.status).toBe(
          "superseded",
        );
      const after = await sessionRequest(owner, "GET", `/orgs/${orgId}/policies/${policyId}`);
      policySchema.parse(after.policy);
      for (const v of after.versions) policyVersionSchema.parse(v);
      expect(after.versions[0]).toMatchObject({ number: 4, status: "active", origin: "rollback" });
      expect(after.policy.active_version_id).toBe(after.versions[0].id);
      expect(after.examples).toHaveLength(1);

      // The rollout as a timeline: every version with its steps, at the times the Cloud API gave,
      // by the person who took them (the owner reads the audit log), version 4 in force.
      const timeline = owner.getByTestId("rollout-timeline");
      const item = (n: number) => timeline.locator(`[data-testid="timeline-version"][data-version="${n}"]`);
      await expect.poll(() => item(4).getAttribute("data-in-force"), { timeout: 20_000 }).toBe("true");
      await expect(
        timeline
          .locator('[data-testid="timeline-version"]')
          .evaluateAll((els) => els.map((e) => e.getAttribute("data-version"))),
      ).resolves.toEqual(["1", "2", "3", "4"]);
      for (const v of after.versions) {
        await expect(item(v.number).getAttribute("data-status")).resolves.toBe(v.status);
        await expect(item(v.number).locator('[data-step="created"]').getAttribute("data-at")).resolves.toBe(
          v.created_at,
        );
        if (v.activated_at)
          await expect(
            item(v.number).locator('[data-step="activated"]').getAttribute("data-at"),
          ).resolves.toBe(v.activated_at);
        if (v.superseded_at)
          await expect(
            item(v.number).locator('[data-step="superseded"]').getAttribute("data-at"),
          ).resolves.toBe(v.superseded_at);
      }
      await expect(item(4).locator('[data-step="activated"]').getAttribute("data-by")).resolves.toBe(
        ownerEmail,
      );
      await expect(item(4).locator('[data-step="created"]').textContent()).resolves.toContain(
        "restoring version 1",
      );
      await expect(item(3).locator('[data-step="created"]').textContent()).resolves.toContain(
        "the require-approval copy of version 2",
      );
      // Version 2 was shadowed before it enforced, and then superseded by the rollback.
      await expect(
        item(2)
          .locator("[data-step]")
          .evaluateAll((els) => els.map((e) => e.getAttribute("data-step"))),
      ).resolves.toEqual(["created", "shadowed", "activated", "superseded"]);
      await expect(item(2).locator('[data-step="shadowed"]').getAttribute("data-by")).resolves.toBe(
        ownerEmail,
      );
      await screenshot(owner, "policy-rollout-timeline", dir);
    },
  );
});

describe("roles", () => {
  it("shows a developer no activate button, and a viewer no write action", { timeout: 120_000 }, async () => {
    const developer = await joinAs("developer");
    await developer.goto(`/orgs/${orgId}/policies/${policyId}`);
    const validation = developer.getByTestId("validation");
    await expect.poll(() => validation.getAttribute("data-state"), { timeout: 20_000 }).toBe("valid");
    await typeDocument(developer, JSON.stringify({ ...version2, rules: version2.rules.slice(1) }, null, 2));
    await expect.poll(() => validation.getAttribute("data-state"), { timeout: 20_000 }).toBe("valid");
    await developer.getByRole("button", { name: "Save as a draft version" }).click();
    await developer.getByText("Saved as version 5 (a draft).").waitFor();
    await policyTab(developer, "Versions");
    await developer.locator('[data-version="5"][data-status="draft"]').waitFor();
    await expect(developer.getByRole("button", { name: /^Activate/ }).count()).resolves.toBe(0);
    await screenshot(developer, "policy-versions-developer", dir);
    // Any version's whole document, a superseded one too (the policy's read leaves it out).
    const shown = developer.getByTestId("version-document");
    await developer.getByRole("button", { name: "Show version 2" }).click();
    await shown.getByRole("heading", { name: "Document of version 2 (superseded)" }).waitFor();
    await shown.getByText(/"huge-refunds"/).waitFor();
    await screenshot(developer, "policy-version-document", dir);
    await developer.getByRole("button", { name: "Show version 1" }).click();
    await shown.getByRole("heading", { name: "Document of version 1 (superseded)" }).waitFor();
    await shown.getByText(/"small-refunds"/).waitFor();
    await expect(shown.textContent()).resolves.not.toContain("huge-refunds");
    // The owner, on the same page, is offered the activation the developer is not.
    await owner.goto(`/orgs/${orgId}/policies/${policyId}/versions`);
    await owner.getByRole("button", { name: "Activate version 5" }).waitFor();
    await policyTab(developer, "Rollout");
    await developer.getByRole("button", { name: "Start shadow" }).waitFor();
    for (const name of [/^Enforce/, /^Require approval/, /^Roll back/, /^Emergency stop/])
      await expect(developer.getByRole("button", { name }).count()).resolves.toBe(0);

    const viewer = await joinAs("viewer");
    const writes = /save|activate|shadow|roll back|emergency|enforce|require approval|add|remove|create/i;
    // Buttons that write: a column header's sort button ("Shadow", "Created") only reorders rows.
    // Counted in one pass over the page, so a table that arrives meanwhile cannot skew the count.
    const writeButtons = (page: Page) =>
      page.evaluate(
        (source) =>
          [...document.querySelectorAll("button, [role=button]")].filter(
            (b) =>
              !b.closest("th") &&
              new RegExp(source, "i").test(b.getAttribute("aria-label") ?? b.textContent ?? ""),
          ).length,
        writes.source,
      );
    await viewer.goto(`/orgs/${orgId}/policies`);
    await viewer.getByTestId("policies").waitFor();
    await expect(writeButtons(viewer)).resolves.toBe(0);
    for (const tab of ["Document", "Versions", "Rollout", "Simulation", "Decision map", "Settings"]) {
      await viewer.goto(`/orgs/${orgId}/policies/${policyId}`);
      await policyTab(viewer, tab);
      await viewer.getByRole("heading", { level: 2 }).first().waitFor();
      await expect(writeButtons(viewer)).resolves.toBe(0);
    }
    await expect(
      viewer.getByRole("navigation", { name: "Policy" }).getByRole("link", { name: "Evidence" }).count(),
    ).resolves.toBe(0);
  });
});

describe("gates met on the way", () => {
  it(
    "names the Gateway that is not upgraded, then the active version that changed meanwhile",
    { timeout: 120_000 },
    async () => {
      await world.db.pool.query("delete from rate_limit_counters where key like '%' || $1 || '%'", [orgId]);
      const detail = await sessionRequest(owner, "GET", `/orgs/${orgId}/policies/${policyId}`);
      const v2 = detail.versions.find((v: { number: number }) => v.number === 2);
      // A revision-2 draft: the require-approval copy of version 2 (its deny rule becomes a guard).
      const copy = (
        await sessionRequest(owner, "POST", `/orgs/${orgId}/policies/${policyId}/versions`, {
          require_approval_copy_of: v2.id,
        })
      ).version;
      expect(copy.language_revision).toBe(2);
      // An outdated Gateway still running: it reported a moment ago without revision 2.
      await world.db.pool.query(
        "insert into gateway_instances (instance_id, version, language_revisions) values ('gateway-outdated', '0.0.1', '{1}')",
      );
      try {
        await owner.goto(`/orgs/${orgId}/policies/${policyId}/versions`);
        await owner.getByRole("button", { name: `Activate version ${copy.number}` }).click();
        const dialog = owner.getByRole("dialog");
        await expect
          .poll(() => dialog.locator('[data-gate="examples"]').getAttribute("data-state"), {
            timeout: 20_000,
          })
          .toBe("failing");
        await dialog.getByLabel("I acknowledge the failing examples and activate anyway").check();
        await dialog.getByRole("button", { name: `Activate version ${copy.number}` }).click();
        await dialog.getByTestId("language-gate").getByText("gateway-outdated").waitFor();
        await expect(dialog.locator('[role=alert][data-code="GATEWAYS_NOT_UPGRADED"]').count()).resolves.toBe(
          1,
        );
        await screenshot(owner, "policy-language-gate", dir);
      } finally {
        await world.db.pool.query("delete from gateway_instances where instance_id = 'gateway-outdated'");
      }

      // Someone else activates version 5 while the dialog is open: the confirmation is refused.
      const v5 = detail.versions.find((v: { number: number }) => v.number === 5);
      await sessionRequest(owner, "POST", `/orgs/${orgId}/policies/${policyId}/versions/${v5.id}/activate`, {
        expected_active_version_id: detail.policy.active_version_id,
        acknowledge_failing_examples: true,
      });
      const dialog = owner.getByRole("dialog");
      await dialog.getByRole("button", { name: `Activate version ${copy.number}` }).click();
      await dialog.getByTestId("active-changed").getByText("it is now version 5").waitFor();
      expect(
        (await sessionRequest(owner, "GET", `/orgs/${orgId}/policies/${policyId}`)).policy.active_version_id,
      ).toBe(v5.id);
      await dialog.getByRole("button", { name: "Review against version 5" }).click();
      await expect
        .poll(() => dialog.locator('[data-gate="examples"]').getAttribute("data-state"), { timeout: 20_000 })
        .toBe("failing");
      await dialog.getByLabel("I acknowledge the failing examples and activate anyway").check();
      await dialog.getByRole("button", { name: `Activate version ${copy.number}` }).click();
      await owner.getByTestId("notice").getByText(`Version ${copy.number} is active.`).waitFor();
      expect(
        (await sessionRequest(owner, "GET", `/orgs/${orgId}/policies/${policyId}`)).policy.active_version_id,
      ).toBe(copy.id);
    },
  );
});

describe("accessibility", () => {
  const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

  /** axe-core's serious and critical violations on the page as it is now. */
  async function seriousViolations(page: Page): Promise<string[]> {
    // Evaluated through the browser's protocol, so the page's content security policy does not apply.
    await page.evaluate(axeSource);
    return page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run: (ctx: Document) => Promise<AxeResult> } }).axe;
      interface AxeResult {
        violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[];
      }
      const r = await axe.run(document);
      return r.violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
    });
  }

  it("reaches the editor and leaves it by keyboard", { timeout: 60_000 }, async () => {
    await owner.goto(`/orgs/${orgId}/policies/${policyId}`);
    await expect
      .poll(() => owner.getByTestId("validation").getAttribute("data-state"), { timeout: 20_000 })
      .toBe("valid");
    await owner.getByRole("radio", { name: "JSON" }).focus();
    await owner.keyboard.press("Tab");
    // The editor lives in a shadow root: the focused element is inside it.
    const inEditor = () =>
      owner.evaluate(
        () =>
          document.activeElement?.shadowRoot?.activeElement?.getAttribute("aria-label") === "Policy document",
      );
    await expect(inEditor()).resolves.toBe(true);
    await owner.keyboard.press("Control+End");
    await owner.keyboard.type(" ");
    await owner.keyboard.press("Tab");
    await expect(inEditor()).resolves.toBe(false);
    await expect(
      owner.evaluate(() => (document.activeElement as HTMLInputElement | null)?.labels?.[0]?.textContent),
    ).resolves.toBe("Note for this version (optional)");
  });

  it("finds no serious or critical violation on the policy pages", { timeout: 120_000 }, async () => {
    // A minute passes: the analyses of the tests before (10 a minute per organization) are forgotten.
    await world.db.pool.query("delete from rate_limit_counters where key like '%' || $1 || '%'", [orgId]);
    // A draft to simulate and to open the activation dialog for.
    const draft = (
      await sessionRequest(owner, "POST", `/orgs/${orgId}/policies/${policyId}/versions`, {
        document: { ...version2, default_effect: "require_approval" },
      })
    ).version;
    const consoleErrors: string[] = [];
    owner.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
    const found: Record<string, string[]> = {};
    await owner.goto(`/orgs/${orgId}/policies`);
    await owner.getByTestId("policies").waitFor();
    found.list = await seriousViolations(owner);
    for (const tab of [
      "Document",
      "Versions",
      "Rollout",
      "Simulation",
      "Decision map",
      "Evidence",
      "Settings",
    ]) {
      await owner.goto(`/orgs/${orgId}/policies/${policyId}`);
      await policyTab(owner, tab);
      await owner.getByRole("heading", { level: 2 }).first().waitFor();
      if (tab === "Document")
        await expect
          .poll(() => owner.getByTestId("validation").getAttribute("data-state"), { timeout: 20_000 })
          .toBe("valid");
      if (tab === "Simulation") {
        await owner.getByLabel("Candidate").selectOption({ label: `Version ${draft.number} (draft)` });
        await owner.getByRole("button", { name: "Run the simulation" }).click();
        await owner.getByTestId("matrix").waitFor();
        await owner.getByRole("button", { name: "Save this simulation" }).click();
        await owner.getByTestId("saved-simulations").waitFor();
        await screenshot(owner, "policy-simulation", dir);
      }
      if (tab === "Decision map") {
        await owner.getByTestId("decision-map").waitFor();
        // The picture: the refund tool's amount bands in order, each in what the active version decides.
        const active = (await sessionRequest(owner, "GET", `/orgs/${orgId}/policies/${policyId}`)).policy
          .active_version_id;
        const map = (
          await sessionRequest(
            owner,
            "GET",
            `/orgs/${orgId}/policies/${policyId}/versions/${active}/decision-map`,
          )
        ).decision_map;
        const refunds = map.tools.find((t: { tool: string }) => t.tool === "refund_payment");
        const strip = owner.locator('[data-testid="map-strip"][data-tool="refund_payment"]');
        await expect(
          strip.locator("[data-effect]").evaluateAll((els) => els.map((e) => e.getAttribute("data-effect"))),
        ).resolves.toEqual(
          refunds.entries.map(
            (e: { decision: { effect: string } | null }) => e.decision?.effect ?? "depends",
          ),
        );
        await expect(strip.getByRole("img").getAttribute("aria-label")).resolves.toMatch(
          /^refund_payment in EUR: /,
        );
        await screenshot(owner, "policy-decision-map", dir);
      }
      if (tab === "Evidence") {
        await owner.getByRole("button", { name: "Prepare the export" }).click();
        await owner.getByTestId("evidence-ready").waitFor();
        await screenshot(owner, "policy-evidence", dir);
      }
      found[tab] = await seriousViolations(owner);
    }
    await policyTab(owner, "Versions");
    await owner.getByRole("button", { name: `Activate version ${draft.number}` }).click();
    await owner.getByRole("dialog").locator('[data-gate="impact"][data-less-restricted]').waitFor();
    found.activation = await seriousViolations(owner);
    await owner.keyboard.press("Escape");
    await expect.poll(() => owner.getByRole("dialog").count()).toBe(0);
    // No script error, refused style or failed request on any of these pages.
    expect(consoleErrors).toEqual([]);
    expect(found).toEqual({
      list: [],
      Document: [],
      Versions: [],
      Rollout: [],
      Simulation: [],
      "Decision map": [],
      Evidence: [],
      Settings: [],
      activation: [],
    });
  });
});

describe("stop and settings", () => {
  it(
    "saves the disclosure without a version, and stops every call once the policy's name is typed",
    { timeout: 90_000 },
    async () => {
      const before = await sessionRequest(owner, "GET", `/orgs/${orgId}/policies/${policyId}`);
      await owner.goto(`/orgs/${orgId}/policies/${policyId}/settings`);
      await owner.getByLabel("Agents are told").selectOption("rule");
      await owner.getByRole("button", { name: "Save the disclosure" }).click();
      await owner.getByText("Saved. It applies to the next decisions; no version was made.").waitFor();
      const after = await sessionRequest(owner, "GET", `/orgs/${orgId}/policies/${policyId}`);
      expect(after.policy.agent_disclosure).toBe("rule");
      expect(after.versions).toHaveLength(before.versions.length);

      await policyTab(owner, "Rollout");
      await owner.getByRole("button", { name: "Emergency stop…" }).click();
      const dialog = owner.getByRole("dialog");
      const stop = dialog.getByRole("button", { name: "Stop every call" });
      await expect(stop.isDisabled()).resolves.toBe(true);
      await dialog.getByLabel(/^Type the policy's name/).fill("refund");
      await expect(stop.isDisabled()).resolves.toBe(true);
      await dialog.getByLabel(/^Type the policy's name/).fill("refunds");
      await stop.click();
      await owner
        .getByTestId("notice")
        .getByText(/^Emergency stop: every call is denied/)
        .waitFor();
      await owner.locator('[role=alert][data-code="EMERGENCY_ACTIVE"]').waitFor();
      const small = await world.gateway.authorize(gatewayKey, {
        tool: "refund_payment",
        arguments: { amount: 10, order: "P-after-stop" },
        idempotency_key: "P-after-stop",
      });
      expect(small.body).toMatchObject({ allowed: false, status: "denied" });
    },
  );
});
