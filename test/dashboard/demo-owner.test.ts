/**
 * `make run`'s demo owner approves the demo's held call in Chromium (issue 39 item 3): the real
 * `make run` process seeds the demo organization and writes .data/demo-owner-key.pem; the owner
 * signs in with demo.json's password, meets IDENTITY_MISSING on the held call, imports the key
 * file under Your account as the README says, and approves; the agent's repeat is authorized.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { freePort } from "../../core/src/store/index.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { launchChromium } from "../fixtures/chromium.js";
import { signInInBrowser } from "../fixtures/dashboard.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
let db: TestDatabase;
let dataDir: string;
let child: ChildProcessWithoutNullStreams | undefined;
let exited: Promise<number | null> | undefined;
let browser: Browser;
let out = "";

/** `make run` on free ports, against a fresh database; resolves once it says it is running. */
async function startMakeRun(): Promise<void> {
  const ports = {
    COUNTERSIGN_API_PORT: String(await freePort()),
    COUNTERSIGN_GATEWAY_PORT: String(await freePort()),
    COUNTERSIGN_SAMPLE_UPSTREAM_PORT: String(await freePort()),
    COUNTERSIGN_SMTP_PORT: String(await freePort()),
    COUNTERSIGN_INBOX_PORT: String(await freePort()),
  };
  child = spawn(
    process.execPath,
    ["--conditions=countersign-source", "--import", "tsx", "local/src/main.ts"],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/root",
        DATABASE_URL: db.url,
        COUNTERSIGN_DATA_DIR: dataDir,
        ...ports,
      },
    },
  );
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const c = child;
  exited = new Promise((resolve) => c.on("exit", (code) => resolve(code)));
  const end = Date.now() + 90_000;
  while (!out.includes("Countersign is running.")) {
    if (child.exitCode !== null || Date.now() > end) throw new Error(`make run did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  db = await createTestDatabase({ migrate: false });
  dataDir = mkdtempSync(path.join(os.tmpdir(), "cs-demo-owner-"));
  chmodSync(dataDir, 0o755);
  await startMakeRun();
  browser = await launchChromium();
}, 150_000);
afterAll(async () => {
  await browser?.close();
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill("SIGINT");
    await exited;
  }
  await db?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("the demo of make run", () => {
  it(
    "lets its owner import the seeded key file in the browser and approve the demo's held call",
    { timeout: 150_000 },
    async () => {
      const demo = JSON.parse(readFileSync(path.join(dataDir, "demo.json"), "utf8"));
      expect(demo.owner_key_file).toBe(path.join(dataDir, "demo-owner-key.pem"));
      expect(statSync(demo.owner_key_file).mode & 0o777).toBe(0o600);
      expect(readFileSync(demo.owner_key_file, "utf8")).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);

      // The agent's call over 100 EUR, as the README's curl makes it: held for the owner.
      const authorize = async () =>
        (
          await fetch(`${demo.gateway_url}/v1/authorize`, {
            method: "POST",
            headers: { authorization: `Bearer ${demo.gateway_key}`, "content-type": "application/json" },
            body: JSON.stringify({
              tool: demo.decision_only_tool,
              arguments: demo.approval_arguments,
              idempotency_key: "demo-refund-ord_1002",
            }),
          })
        ).json();
      const held = await authorize();
      expect(held).toMatchObject({ allowed: false, status: "approval_pending" });

      const origin = new URL(demo.api_url).origin;
      const context = await browser.newContext({ baseURL: origin, viewport: { width: 1100, height: 760 } });
      const page = await context.newPage();
      await signInInBrowser(page, demo.owner_email, demo.owner_password);
      const approval = `/orgs/${demo.org_id}/approvals/${held.approval_request_id}`;
      await page.goto(approval);
      // Before: the browser holds none of the request's approver keys.
      await page.locator('[data-code="IDENTITY_MISSING"]').waitFor();

      await page.goto("/account");
      await page.getByLabel(/import a bound key from its file/).setInputFiles(demo.owner_key_file);
      await page.getByTestId("identities").getByText("in this browser").waitFor();

      await page.goto(approval);
      await page.getByTestId("call-arguments").locator('[data-argument="order_id"]').waitFor();
      expect(await page.locator('[data-code="IDENTITY_MISSING"]').count()).toBe(0);
      await page.getByRole("button", { name: "Approve" }).click();
      await expect
        .poll(() => page.getByTestId("approval-status").textContent(), { timeout: 20_000 })
        .toBe("approved");
      expect(await authorize()).toMatchObject({ allowed: true, status: "authorized" });
      await context.close();
    },
  );
});
