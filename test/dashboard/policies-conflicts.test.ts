/**
 * The policy pages in Chromium against the real services, for what the main policy test does not
 * walk: a policy written in the editor's YAML mode, saved and activated; and the conflicts a person
 * meets when someone else acts between reading a page and confirming on it, each provoked for real
 * by a second session of the same owner (or a new call through the Gateway): DRAFT_EXISTS,
 * SHADOW_CHANGED (setting a shadow, and activating), IMPACT_CHANGED, and IN_USE for an
 * integration whose tool has recorded actions.
 * Each refusal is shown as a message naming what changed, and nothing was changed by it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { policySchema } from "../../protocol/src/wire/index.js";
import { signInInBrowser, startDashboardWorld, type DashboardWorld } from "../fixtures/dashboard.js";
import { seriousViolations } from "./axe.js";
import { policyTab, refundsOrganization, sessionRequest, typeDocument } from "./setup-refunds.js";

let world: DashboardWorld;
let orgId: string;
let policyId: string;
let gatewayKey: string;
let owner: Page;
/** The same owner signed in in another browser: the someone else who acts meanwhile. */
let other: Page;

/** Refunds up to `upTo` EUR allowed, larger ones held for an owner's or admin's approval. */
const refundsUpTo = (upTo: string) => ({
  revision: 1,
  default_effect: "deny",
  rules: [
    {
      id: "large-refunds",
      effect: "require_approval",
      conditions: [{ field: "amount", op: "gt", threshold: upTo, currency: "EUR" }],
      approvers: { roles: ["owner", "admin"], count: 1 },
    },
    {
      id: "small-refunds",
      effect: "allow",
      conditions: [{ field: "amount", op: "lte", threshold: upTo, currency: "EUR" }],
    },
  ],
});

/** refundsUpTo("300") as a person writes it in YAML, with a comment and a flow mapping. */
const yamlDocument = `# Refunds up to 300 EUR go through; larger ones wait for an owner or admin.
revision: 1
default_effect: deny
rules:
  - id: large-refunds
    effect: require_approval
    conditions:
      - field: amount
        op: gt
        threshold: "300"
        currency: EUR
    approvers:
      roles: [owner, admin]
      count: 1
  - id: small-refunds
    effect: allow
    conditions:
      - { field: amount, op: lte, threshold: "300", currency: EUR }
`;

const detailOf = () => sessionRequest(other, "GET", `/orgs/${orgId}/policies/${policyId}`);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const versionNumbered = (detail: any, n: number) =>
  detail.versions.find((v: { number: number }) => v.number === n);
/** A minute passes: the analyses of the steps before (10 a minute per organization) are forgotten. */
const forgetAnalyses = () =>
  world.db.pool.query("delete from rate_limit_counters where key like '%' || $1 || '%'", [orgId]);

beforeAll(async () => {
  world = await startDashboardWorld();
  let email: string;
  ({
    owner,
    ownerEmail: email,
    orgId,
    policyId,
    gatewayKey,
  } = await refundsOrganization(world, "Conflicts Inc"));
  other = (await world.person()).page;
  await signInInBrowser(other, email);
}, 240_000);
afterAll(async () => {
  await world?.close();
});

describe("the YAML mode", () => {
  it(
    "edits a policy in YAML, refuses a text that is not YAML, saves the draft and activates it",
    { timeout: 120_000 },
    async () => {
      await owner.goto(`/orgs/${orgId}/policies/${policyId}`);
      const validation = owner.getByTestId("validation");
      await expect.poll(() => validation.getAttribute("data-state"), { timeout: 20_000 }).toBe("valid");
      // The editor shows the lines in view; the stored document begins with its rules.
      const editor = owner.getByRole("textbox", { name: "Policy document" });
      await expect(editor.textContent()).resolves.toContain('"id": "large-refunds"');
      // The active document turned into YAML by the format switch.
      await owner.getByRole("radio", { name: "YAML" }).check();
      await expect.poll(() => editor.textContent()).toContain("- id: large-refunds");
      await expect(editor.textContent()).resolves.not.toContain('"id"');
      await expect.poll(() => validation.getAttribute("data-state"), { timeout: 20_000 }).toBe("valid");

      // A key given twice: the text is refused with its line before the Cloud API is asked.
      await typeDocument(owner, "revision: 1\ndefault_effect: deny\ndefault_effect: allow\nrules: []\n");
      await expect.poll(() => validation.getAttribute("data-state"), { timeout: 20_000 }).toBe("syntax");
      await expect(validation.textContent()).resolves.toBe("Not valid (line 3): Map keys must be unique");
      const save = owner.getByRole("button", { name: "Save as a draft version" });
      await expect(save.isDisabled()).resolves.toBe(true);
      // YAML the Cloud API refuses as a policy: its issue named as in the YAML.
      await typeDocument(owner, yamlDocument.replace("default_effect: deny", "default_effect: maybe"));
      await expect.poll(() => validation.getAttribute("data-state"), { timeout: 20_000 }).toBe("invalid");
      await expect(owner.getByTestId("issues").textContent()).resolves.toContain("default_effect");

      await typeDocument(owner, yamlDocument);
      await expect.poll(() => validation.getAttribute("data-state"), { timeout: 20_000 }).toBe("valid");
      expect(await seriousViolations(owner)).toEqual([]);
      await owner.getByLabel("Note for this version (optional)").fill("written in YAML");
      await save.click();
      await owner.getByText("Saved as version 2 (a draft).").waitFor();
      const v2 = versionNumbered(await detailOf(), 2);
      // What was saved is the document the YAML says, not its text.
      expect(v2).toMatchObject({ status: "draft", note: "written in YAML", document: refundsUpTo("300") });

      await policyTab(owner, "Versions");
      await owner.getByRole("button", { name: "Activate version 2" }).click();
      const dialog = owner.getByRole("dialog");
      await expect
        .poll(() => dialog.locator('[data-gate="impact"]').getAttribute("data-less-restricted"), {
          timeout: 20_000,
        })
        .toBe("0");
      await dialog.getByRole("button", { name: "Activate version 2" }).click();
      await owner.getByTestId("notice").getByText("Version 2 is active.").waitFor();
      const after = await detailOf();
      policySchema.parse(after.policy);
      expect(after.policy.active_version_id).toBe(v2.id);
      // The Gateway decides by it at once: 250 EUR now goes through, as version 1 would have held it.
      const small = await world.gateway.authorize(gatewayKey, {
        tool: "refund_payment",
        arguments: { amount: 250, order: "P-yaml" },
        idempotency_key: "P-yaml",
      });
      expect(small.body).toMatchObject({ allowed: true, status: "authorized" });
    },
  );
});

describe("conflicts with someone acting meanwhile", () => {
  it(
    "DRAFT_EXISTS: the same document saved by another session first is named, and no version is added",
    { timeout: 90_000 },
    async () => {
      await forgetAnalyses();
      await owner.goto(`/orgs/${orgId}/policies/${policyId}`);
      const validation = owner.getByTestId("validation");
      await expect.poll(() => validation.getAttribute("data-state"), { timeout: 20_000 }).toBe("valid");
      await typeDocument(owner, JSON.stringify(refundsUpTo("200"), null, 2));
      await expect.poll(() => validation.getAttribute("data-state"), { timeout: 20_000 }).toBe("valid");
      const saved = (
        await sessionRequest(other, "POST", `/orgs/${orgId}/policies/${policyId}/versions`, {
          document: refundsUpTo("200"),
        })
      ).version;
      expect(saved.number).toBe(3);
      const before = await detailOf();
      await owner.getByRole("button", { name: "Save as a draft version" }).click();
      const refusal = owner.locator('[role=alert][data-code="DRAFT_EXISTS"]');
      await refusal.waitFor();
      await expect(refusal.textContent()).resolves.toContain(
        "Draft version 3 already holds this exact document; there is nothing new to save.",
      );
      await expect(owner.getByText(/^Saved as version/).count()).resolves.toBe(0);
      expect(await detailOf()).toEqual(before);
    },
  );

  it(
    "SHADOW_CHANGED: a shadow set or cleared by another session is named, and the person's choice is not applied",
    { timeout: 90_000 },
    async () => {
      await forgetAnalyses();
      const v4 = (
        await sessionRequest(other, "POST", `/orgs/${orgId}/policies/${policyId}/versions`, {
          document: refundsUpTo("400"),
        })
      ).version;
      const v3 = versionNumbered(await detailOf(), 3);
      await owner.goto(`/orgs/${orgId}/policies/${policyId}/rollout`);
      await owner.getByTestId("shadow-state").getByText("No shadow version.").waitFor();
      await owner.getByLabel("Version to shadow").selectOption({ label: "Version 3 (draft)" });

      // The other session shadows version 4 while this page still shows no shadow.
      await sessionRequest(other, "PUT", `/orgs/${orgId}/policies/${policyId}/shadow`, {
        version_id: v4.id,
        expected_shadow_version_id: null,
      });
      await owner.getByRole("button", { name: "Start shadow" }).click();
      const changed = owner.getByTestId("shadow-changed");
      await changed.waitFor();
      await expect(changed.textContent()).resolves.toContain(
        "Someone changed the shadow meanwhile: it is now version 4. Nothing was changed",
      );
      expect((await detailOf()).policy.shadow_version_id).toBe(v4.id);
      // The page now shows the shadow as it is.
      await owner
        .getByTestId("shadow-state")
        .getByText(/^Version 4 is the shadow/)
        .waitFor();
      expect(await seriousViolations(owner)).toEqual([]);

      // The other session clears it while this page shows version 4.
      await sessionRequest(other, "DELETE", `/orgs/${orgId}/policies/${policyId}/shadow`);
      await owner.getByLabel("Version to shadow").selectOption({ label: "Version 3 (draft)" });
      await owner.getByRole("button", { name: "Start shadow" }).click();
      await changed.getByText(/no version is shadowed\. Nothing was changed/).waitFor();
      expect((await detailOf()).policy.shadow_version_id).toBeNull();
      await owner.getByTestId("shadow-state").getByText("No shadow version.").waitFor();

      // Chosen again against the shadow as it now is: applied.
      await owner.getByRole("button", { name: "Start shadow" }).click();
      await owner
        .getByTestId("shadow-state")
        .getByText(/^Version 3 is the shadow/)
        .waitFor();
      await expect(changed.count()).resolves.toBe(0);
      expect((await detailOf()).policy.shadow_version_id).toBe(v3.id);
      await sessionRequest(other, "DELETE", `/orgs/${orgId}/policies/${policyId}/shadow`);
    },
  );

  it(
    "IMPACT_CHANGED: a call recorded after the preview makes the activation loosen more than reviewed; nothing is activated until the new impact is reviewed",
    { timeout: 90_000 },
    async () => {
      await forgetAnalyses();
      // Version 5 allows refunds up to 1000 EUR: the 500 EUR call held under version 2 would go through.
      const v5 = (
        await sessionRequest(other, "POST", `/orgs/${orgId}/policies/${policyId}/versions`, {
          document: refundsUpTo("1000"),
        })
      ).version;
      const before = await detailOf();
      await owner.goto(`/orgs/${orgId}/policies/${policyId}/versions`);
      await owner.getByRole("button", { name: `Activate version ${v5.number}` }).click();
      const dialog = owner.getByRole("dialog");
      const impact = dialog.locator('[data-gate="impact"]');
      await expect.poll(() => impact.getAttribute("data-less-restricted"), { timeout: 20_000 }).toBe("1");

      // Meanwhile the agent asks for 700 EUR: held under version 2, allowed under version 5.
      const held = await world.gateway.authorize(gatewayKey, {
        tool: "refund_payment",
        arguments: { amount: 700, order: "P-meanwhile" },
        idempotency_key: "P-meanwhile",
      });
      expect(held.body).toMatchObject({ status: "approval_pending" });
      const activate = dialog.getByRole("button", { name: `Activate version ${v5.number}` });
      await activate.click();
      const changed = dialog.getByTestId("impact-changed");
      await changed.waitFor();
      await expect(changed.textContent()).resolves.toContain(
        "The impact changed meanwhile: 2 recent call(s) would now be less restricted, not the 1 you reviewed. Nothing was activated.",
      );
      await expect(activate.isDisabled()).resolves.toBe(true);
      expect(await seriousViolations(owner)).toEqual([]);
      const unchanged = await detailOf();
      expect(unchanged.policy).toEqual(before.policy);
      expect(versionNumbered(unchanged, v5.number).status).toBe("draft");

      // Reviewed again: the preview counts the new call, and the activation goes through.
      await dialog.getByRole("button", { name: "Review the new impact" }).click();
      await expect.poll(() => impact.getAttribute("data-less-restricted"), { timeout: 20_000 }).toBe("2");
      await expect(changed.count()).resolves.toBe(0);
      await activate.click();
      await owner.getByTestId("notice").getByText(`Version ${v5.number} is active.`).waitFor();
      expect((await detailOf()).policy.active_version_id).toBe(v5.id);
    },
  );

  it(
    "SHADOW_CHANGED on activation: a shadow set by another session while the dialog is open is named; nothing is activated until reviewed against it",
    { timeout: 90_000 },
    async () => {
      await forgetAnalyses();
      const create = async (upTo: string) =>
        (
          await sessionRequest(other, "POST", `/orgs/${orgId}/policies/${policyId}/versions`, {
            document: refundsUpTo(upTo),
          })
        ).version;
      const chosen = await create("250");
      const shadowed = await create("260");
      await owner.goto(`/orgs/${orgId}/policies/${policyId}/versions`);
      await owner.getByRole("button", { name: `Activate version ${chosen.number}` }).click();
      const dialog = owner.getByRole("dialog");
      await expect
        .poll(() => dialog.locator('[data-gate="impact"]').getAttribute("data-less-restricted"), {
          timeout: 20_000,
        })
        .not.toBe("");
      await dialog
        .locator('[data-gate="shadow"]')
        .getByText("Activation is refused if a version is shadowed before you confirm.")
        .waitFor();

      // The other session shadows a version while this dialog still shows none.
      await sessionRequest(other, "PUT", `/orgs/${orgId}/policies/${policyId}/shadow`, {
        version_id: shadowed.id,
        expected_shadow_version_id: null,
      });
      const before = await detailOf();
      const activate = dialog.getByRole("button", { name: `Activate version ${chosen.number}` });
      await activate.click();
      const changed = dialog.getByTestId("activation-shadow-changed");
      await changed.waitFor();
      await expect(changed.textContent()).resolves.toContain(
        `The shadow changed meanwhile: it is now version ${shadowed.number}. Nothing was activated.`,
      );
      await expect(activate.isDisabled()).resolves.toBe(true);
      expect(await seriousViolations(owner)).toEqual([]);
      const unchanged = await detailOf();
      expect(unchanged.policy).toEqual(before.policy);
      expect(versionNumbered(unchanged, chosen.number).status).toBe("draft");

      // Reviewed against the shadow as it is: the activation goes through.
      await dialog.getByRole("button", { name: "Review against the shadow as it is" }).click();
      await dialog
        .locator('[data-gate="shadow"]')
        .getByText(
          `Activation is refused if version ${shadowed.number} is no longer the shadow when you confirm.`,
        )
        .waitFor();
      await activate.click();
      await owner.getByTestId("notice").getByText(`Version ${chosen.number} is active.`).waitFor();
      expect((await detailOf()).policy.active_version_id).toBe(chosen.id);
      await sessionRequest(other, "DELETE", `/orgs/${orgId}/policies/${policyId}/shadow`);
    },
  );

  it(
    "IN_USE: an integration whose tool has recorded actions is not deleted, and the page says to disable it",
    { timeout: 60_000 },
    async () => {
      const servers = (await sessionRequest(other, "GET", `/orgs/${orgId}/mcp-servers`)).items;
      const billing = servers.find((s: { name: string }) => s.name === "billing system");
      await owner.goto(`/orgs/${orgId}/mcp-servers/${billing.id}`);
      await owner.getByRole("button", { name: "Delete integration" }).click();
      // The confirmation leads with the consequence; the refusal is shown beside the choice.
      await owner.getByRole("dialog").getByRole("button", { name: "Delete the integration" }).click();
      const refusal = owner.getByRole("dialog").locator('[role=alert][data-code="IN_USE"]');
      await refusal.waitFor();
      await expect(refusal.textContent()).resolves.toContain(
        "tools of this MCP server have recorded actions; disable it instead",
      );
      // Still there, with its tool, and the page did not leave it.
      expect(
        (await sessionRequest(other, "GET", `/orgs/${orgId}/mcp-servers/${billing.id}`)).mcp_server,
      ).toEqual(billing);
      const tools = (await sessionRequest(other, "GET", `/orgs/${orgId}/tools`)).items;
      expect(tools.map((t: { exposed_name: string }) => t.exposed_name)).toEqual(["refund_payment"]);
      expect(new URL(owner.url()).pathname).toBe(`/orgs/${orgId}/mcp-servers/${billing.id}`);
    },
  );
});

describe("keyboard", () => {
  it(
    "opens, leaves and confirms the activation dialog by keyboard alone; focus stays in the dialog and comes back to its opener",
    { timeout: 90_000 },
    async () => {
      await forgetAnalyses();
      const v6 = (
        await sessionRequest(other, "POST", `/orgs/${orgId}/policies/${policyId}/versions`, {
          document: refundsUpTo("150"),
        })
      ).version;
      await owner.goto(`/orgs/${orgId}/policies/${policyId}/versions`);
      const opener = owner.getByRole("button", { name: `Activate version ${v6.number}` });
      await opener.focus();
      const dialog = owner.getByRole("dialog");
      const focused = () =>
        owner.evaluate(() => ({
          inDialog: !!document.activeElement?.closest("[role=dialog]"),
          text: (document.activeElement as HTMLElement | null)?.innerText?.trim() ?? "",
          tag: document.activeElement?.tagName ?? "",
        }));

      // Escape leaves it, and focus is back on the button that opened it.
      await owner.keyboard.press("Enter");
      await dialog.waitFor();
      await expect(focused()).resolves.toMatchObject({ inDialog: true });
      await owner.keyboard.press("Escape");
      await expect(dialog.count()).resolves.toBe(0);
      await expect(focused()).resolves.toMatchObject({
        inDialog: false,
        text: `Activate version ${v6.number}`,
      });

      // Opened again with Space; once the gates are read, Tab goes through the dialog to its button.
      await owner.keyboard.press("Space");
      await expect
        .poll(() => dialog.locator('[data-gate="impact"]').getAttribute("data-less-restricted"), {
          timeout: 20_000,
        })
        .not.toBe("");
      // From where the dialog put focus when it opened, Tab by Tab; the note is typed on the way.
      const visited: string[] = [];
      let f = await focused();
      for (let n = 0; n < 12 && f.text !== `Activate version ${v6.number}`; n++) {
        expect(f.inDialog, `focus left the dialog for ${f.tag} ${f.text}`).toBe(true);
        visited.push(f.tag === "TEXTAREA" ? "note" : f.text);
        if (f.tag === "TEXTAREA") await owner.keyboard.type("tightened by keyboard");
        await owner.keyboard.press("Tab");
        f = await focused();
      }
      expect(f).toMatchObject({ inDialog: true, text: `Activate version ${v6.number}` });
      expect(visited).toContain("note");
      await owner.keyboard.press("Enter");
      await owner.getByTestId("notice").getByText(`Version ${v6.number} is active.`).waitFor();
      expect((await detailOf()).policy.active_version_id).toBe(v6.id);
    },
  );
});
