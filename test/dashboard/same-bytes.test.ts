/**
 * The browser signs and verifies exactly the bytes the protocol package defines. Chromium to Node:
 * a principal key made by node:crypto, restored in the browser from its PKCS#8 PEM, signs a
 * delegation there whose signature Node verifies and reproduces byte for byte (Ed25519 is
 * deterministic); a personal identity document made in the browser verifies in Node. Node to
 * Chromium: a bundle signed by node:crypto verifies on the dashboard's offline page with the same
 * checks as in Node, and a tampered one fails there with the codes Node reports.
 */
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  identityGenesis,
  nobleVerify,
  nodeSigner,
  nodeVerify,
  serializeBundle,
  signIdentity,
  signObject,
  timestamp,
  verifyBundle,
  verifyIdentityDocument,
  verifySignedObject,
  type SignedObject,
} from "../../protocol/src/evidence/index.js";
import { buildScenario } from "../../protocol/src/evidence/scenario.test-support.js";
import { tamperings } from "../../protocol/src/evidence/tampering.test-support.js";
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
beforeAll(async () => {
  world = await startDashboardWorld();
  dir = mkdtempSync(join(tmpdir(), "countersign-same-bytes-"));
}, 120_000);
afterAll(async () => {
  await world?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it("signs in Chromium what Node verifies and signs identically", { timeout: 180_000 }, async () => {
  const { page } = await world.person();
  await signUpInBrowser(world, page, newEmail("owner"));
  await page.getByLabel("Name").fill("Bytes Inc");
  await page.getByRole("button", { name: "Create" }).click();
  await page.getByRole("heading", { name: "Organization principal" }).waitFor();
  const orgId = new URL(page.url()).pathname.split("/")[2]!;

  // The principal made and registered from Node, as the CLI does; its PEM restored in the browser.
  const { privateKey } = generateKeyPairSync("ed25519");
  const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const signer = nodeSigner(privateKey);
  const document = signIdentity(
    identityGenesis({
      publicKey: signer.publicKey,
      actor_type: "principal",
      subject: { organization_id: orgId, id: orgId, name: "Bytes Inc" },
      issued_at: timestamp(new Date()),
    }),
    signer,
  );
  await sessionRequest(page, "POST", `/orgs/${orgId}/principal`, { document });
  await page.reload();
  await page.getByTestId("principal-not-held").waitFor();
  await page
    .locator("input[type=file]")
    .setInputFiles({ name: "principal.pem", mimeType: "application/x-pem-file", buffer: Buffer.from(pem) });
  await page.getByTestId("principal-held").waitFor();

  // A delegation signed in Chromium with the restored key.
  await page.goto(`/orgs/${orgId}/agents`);
  await page.getByLabel("Name").fill("bytes-bot");
  await page.getByRole("button", { name: "Create agent" }).click();
  await page.getByRole("heading", { name: "bytes-bot" }).waitFor();
  const agentId = new URL(page.url()).pathname.split("/")[4]!;
  await page.getByLabel(/^Permissions/).fill("payments.* reports.read");
  await page.getByRole("button", { name: "Sign and grant" }).click();
  await page.getByTestId("delegations").getByText("payments.*").waitFor();
  const { items } = await sessionRequest(page, "GET", `/orgs/${orgId}/agents/${agentId}/delegations`);
  const signedInBrowser = items[0].object as SignedObject;
  expect(signedInBrowser.body).toMatchObject({
    type: "DELEGATION",
    actor: signer.kid,
    payload: { agent_id: agentId, permissions: ["payments.*", "reports.read"] },
  });
  expect(
    verifySignedObject(signedInBrowser, [document], { expectedActor: signer.kid, verify: nodeVerify }),
  ).toMatchObject({ ok: true });
  // Node, signing the same body with the same key, writes the very same object: id and signature.
  expect(signObject(signedInBrowser.body, signer)).toEqual(signedInBrowser);

  // A personal identity document made and self-signed in Chromium verifies in Node (both implementations).
  await page.goto("/account");
  await page.getByRole("button", { name: "Make and bind a key in this browser" }).click();
  await page.getByTestId("identities").getByText("in this browser").waitFor();
  const identities = await sessionRequest(page, "GET", "/me/identities");
  const personal = identities.items[0].documents[0];
  expect(verifyIdentityDocument(personal, nodeVerify)).toMatchObject({ ok: true });
  expect(verifyIdentityDocument(personal, nobleVerify)).toMatchObject({ ok: true });
  expect(personal.body).toMatchObject({ actor_type: "person", kid: identities.items[0].kid });
});

it(
  "verifies in Chromium, offline, a bundle Node signed, and refuses a tampered one with Node's codes",
  { timeout: 120_000 },
  async () => {
    const { page } = await world.person();
    // Loading the page asks for the session once; from then on nothing may be sent.
    await page.goto("/verify", { waitUntil: "networkidle" });
    const sent: string[] = [];
    page.on("request", (r) => sent.push(r.url()));
    const upload = async (name: string, text: string) => {
      await page
        .locator("input[type=file]")
        .setInputFiles({ name, mimeType: "application/json", buffer: Buffer.from(text) });
      await page.getByTestId("file-sha256").waitFor();
    };

    const bundle = buildScenario("approved-execution");
    const inNode = verifyBundle(bundle, { verify: nodeVerify });
    expect(inNode.valid).toBe(true);
    await upload("good.svcbundle", serializeBundle(bundle));
    const result = page.getByTestId("browser-verification");
    await expect(result.getAttribute("data-valid")).resolves.toBe("true");
    // Each check as the page lists it (its name and "passed"/"failed" badge), in Node's order.
    const browserChecks = await result
      .locator("li")
      .evaluateAll((els) => els.map((e) => [e.getAttribute("data-check"), e.getAttribute("data-passed")]));
    expect(browserChecks).toEqual(inNode.checks.map((c) => [c.name, String(c.passed)]));
    const shown = await result.locator("li").allTextContents();
    expect(shown).toEqual(inNode.checks.map((c) => `${c.passed ? "passed" : "failed"}${c.name}`));

    const tampered = tamperings().find((t) => t.expect.length > 0 && !t.knownIdentities)!;
    const nodeSays = verifyBundle(tampered.bundle, { verify: nodeVerify });
    expect(nodeSays.valid).toBe(false);
    await upload("tampered.svcbundle", JSON.stringify(tampered.bundle));
    await page.locator('[data-testid="browser-verification"][data-valid="false"]').waitFor();
    const codes = await page
      .locator("[data-error-code]")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-error-code")));
    expect(codes).toEqual(nodeSays.errors.map((e) => e.code));
    for (const code of tampered.expect) expect(codes).toContain(code);
    await screenshot(page, "verify-offline", dir);
    expect(sent).toEqual([]);
  },
);
