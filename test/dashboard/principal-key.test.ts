/**
 * One principal key file format across the dashboard and the CLI, and replacing the principal, in
 * Chromium against the real Cloud API, PostgreSQL and SMTP server, with the `countersign` CLI as a
 * real process: the backup Chromium downloads is the file `countersign delegations grant
 * --principal-key-file` signs with; a key file `countersign principal create` wrote is registered
 * by `principal replace` and restored into the dashboard; the owner then replaces the principal from
 * the Principal page (the old key, held in this browser, signs its own `replaced` document), after
 * which the old key's files can no longer grant and the new backup can.
 */
import { createPrivateKey } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { nodeSigner } from "../../protocol/src/evidence/index.js";
import { runCountersign, type CliRun } from "../fixtures/cli.js";
import {
  PASSWORD,
  newEmail,
  screenshot,
  signUpInBrowser,
  startDashboardWorld,
  type DashboardWorld,
} from "../fixtures/dashboard.js";
import { sessionRequest } from "./setup-refunds.js";

let world: DashboardWorld;
let dir: string;
beforeAll(async () => {
  world = await startDashboardWorld();
  dir = mkdtempSync(join(tmpdir(), "countersign-principal-key-"));
}, 120_000);
afterAll(async () => {
  await world?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The CLI as the owner runs it in a shell, signed in with the same account as the browser. */
const cli = (...args: string[]): Promise<CliRun> =>
  runCountersign(args, {
    PATH: process.env.PATH,
    HOME: dir,
    COUNTERSIGN_CONFIG_DIR: join(dir, "config"),
    COUNTERSIGN_PASSWORD: PASSWORD,
  });

/** Clicks "Download the key backup" and saves the real download Chromium made. */
async function downloadBackup(page: Page, name: string): Promise<string> {
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Download the key backup" }).click(),
  ]);
  const file = join(dir, name);
  await download.saveAs(file);
  return file;
}

const grant = (orgId: string, agent: string, keyFile: string) =>
  cli(
    "delegations",
    "grant",
    "--agent",
    agent,
    "--permissions",
    "payments.*",
    "--expires-in",
    "1h",
    "--principal-key-file",
    keyFile,
    "--org",
    orgId,
    "--json",
  );

it(
  "the dashboard's backup grants with the CLI, the CLI's key restores in the dashboard, and the owner replaces the principal",
  { timeout: 300_000 },
  async () => {
    const { page } = await world.person();
    const email = newEmail("owner");
    await signUpInBrowser(world, page, email);
    await page.getByLabel("Name").fill("Key Formats Inc");
    await page.getByRole("button", { name: "Create" }).click();
    await page.getByRole("button", { name: "Create the principal" }).click();
    const orgId = new URL(page.url()).pathname.split("/")[2]!;
    const backup = await downloadBackup(page, "backup.pem");
    await page.getByRole("button", { name: "Register the principal" }).click();
    const firstKid = (await page.getByTestId("principal-kid").textContent())!;
    await page.getByTestId("principal-held").waitFor();

    // An agent, made in the dashboard.
    await page.goto(`/orgs/${orgId}/agents`);
    await page.getByLabel("Name").fill("refund-bot");
    await page.getByRole("button", { name: "Create agent" }).click();
    await page.getByRole("heading", { name: "refund-bot" }).waitFor();
    const agentPage = page.url();

    // The CLI grants with the backup file exactly as downloaded, once it is private to its owner.
    const signedIn = await cli("signin", "--url", world.origin, "--email", email);
    expect(signedIn.code, signedIn.stderr).toBe(0);
    chmodSync(backup, 0o600);
    const granted = await grant(orgId, "refund-bot", backup);
    expect(granted.code, granted.stderr).toBe(0);
    expect(JSON.parse(granted.stdout).delegation.object.body.actor).toBe(firstKid);
    await page.reload();
    await page.getByTestId("delegations").getByText("payments.*").waitFor();

    // A key file the CLI made becomes the principal (`principal replace`) and restores in the dashboard.
    const cliKey = join(dir, "cli-principal.pem");
    const created = await cli("principal", "create", "--key-file", cliKey, "--json");
    expect(created.code, created.stderr).toBe(0);
    const cliKid = JSON.parse(created.stdout).kid;
    const replaced = await cli(
      "principal",
      "replace",
      "--key-file",
      cliKey,
      "--old-key-file",
      backup,
      "--org",
      orgId,
    );
    expect(replaced.code, replaced.stderr).toBe(0);
    await page.goto(`/orgs/${orgId}/principal`);
    await page.getByTestId("principal-kid").getByText(cliKid).waitFor();
    await page.getByTestId("principal-not-held").waitFor();
    await page.getByLabel("Restore from a backup file").setInputFiles(cliKey);
    await page.getByTestId("principal-held").waitFor();

    // The owner replaces it from the Principal page: a new key, its backup downloaded first.
    await page.getByRole("button", { name: "Replace the principal" }).click();
    const register = page.getByRole("button", { name: "Register the replacement" });
    await expect(register.isDisabled()).resolves.toBe(true);
    const newBackup = await downloadBackup(page, "replacement.pem");
    const newKid = (await page.getByTestId("principal-draft-kid").textContent())!;
    expect(nodeSigner(createPrivateKey(readFileSync(newBackup, "utf8"))).kid).toBe(newKid);
    await screenshot(page, "principal-replace", dir);
    await register.click();
    await page.getByTestId("principal-kid").getByText(newKid).waitFor();
    await page.getByTestId("principal-held").waitFor();
    // The browser held the old key, so the old log ends with its own "replaced by" document.
    const state = await sessionRequest(page, "GET", `/orgs/${orgId}/principal`);
    expect(state.principal.documents[0].body.replaces).toBe(cliKid);
    const old = state.history.find((i: { kid: string }) => i.kid === cliKid);
    expect(old.status).toBe("replaced");
    expect(old.documents.at(-1).body).toMatchObject({ status: "replaced", replaced_by: newKid });

    // The replaced keys can no longer grant; the new backup can, as downloaded (after chmod 600).
    const stale = await grant(orgId, "refund-bot", cliKey);
    expect(stale.code).toBe(1);
    expect(JSON.parse(stale.stdout).answer.error.code).toBe("VERIFICATION_FAILED");
    chmodSync(newBackup, 0o600);
    const regranted = await grant(orgId, "refund-bot", newBackup);
    expect(regranted.code, regranted.stderr).toBe(0);
    expect(JSON.parse(regranted.stdout).delegation.object.body.actor).toBe(newKid);
    await page.goto(agentPage);
    await page.getByTestId("delegations").getByText("payments.*").nth(1).waitFor();
    await expect(page.getByTestId("delegations").getByText("payments.*").count()).resolves.toBe(2);
  },
);
