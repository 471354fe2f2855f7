/**
 * Webhooks in Chromium against the real services: endpoints whose secret is shown once (on create and
 * on rotate), event types, a real test delivery to a local https receiver (a throwaway CA the Cloud API
 * is told to trust) whose signature checks with the secret shown, the delivery log with every attempt,
 * a failed delivery redelivered, ENDPOINT_DISABLED and RATE_LIMITED; what a viewer is shown; axe-core.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { verifyWebhook } from "../../clients/typescript/src/webhooks/verify.js";
import { screenshot, startDashboardWorld, type DashboardWorld } from "../fixtures/dashboard.js";
import { ok, startReceiver, type Answer, type Receiver } from "../fixtures/https-receiver.js";
import { seriousViolations } from "./axe.js";
import { joinAs, ownerOfNewOrganization } from "./members.js";
import { sessionRequest } from "./setup-refunds.js";

let world: DashboardWorld;
let dir: string;
let receiver: Receiver;
let owner: Page;
let viewer: Page;
let orgId: string;
let endpointId: string;
let secret: string;

const alert = (page: Page, code: string) => page.locator(`[role=alert][data-code="${code}"]`);
const failing: Answer = (_req, res) => {
  res.writeHead(500, { "content-type": "text/plain" });
  res.end("not now");
};
/** Finished attempts of the newest delivery of the endpoint, as its log keeps them. */
async function loggedAttempts(): Promise<number> {
  const page = await sessionRequest(owner, "GET", `/orgs/${orgId}/webhooks/${endpointId}/deliveries`);
  return page.items[0].attempts.filter((a: { finished_at: string | null }) => a.finished_at).length;
}
const deliveries = () => owner.getByTestId("deliveries").getByTestId("delivery");

beforeAll(async () => {
  world = await startDashboardWorld({ upstreams: true });
  dir = mkdtempSync(join(tmpdir(), "countersign-webhooks-"));
  receiver = await startReceiver(world.upstreams!.ca);
  ({ owner, orgId } = await ownerOfNewOrganization(world, "Webhooks Inc"));
  viewer = await joinAs(world, owner, orgId, "viewer");
}, 240_000);
afterAll(async () => {
  await world?.close();
  await receiver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("endpoints", () => {
  it(
    "refuses an address that is not https with its reason, and shows the secret of a new endpoint once",
    { timeout: 60_000 },
    async () => {
      await owner.goto(`/orgs/${orgId}/webhooks`);
      await owner.getByLabel("URL (public https)").fill(`http://127.0.0.1:${receiver.port}/hooks`);
      await owner.getByLabel("policy.activated").check();
      await owner.getByRole("button", { name: "Add endpoint" }).click();
      await alert(owner, "URL_NOT_ALLOWED").waitFor();
      await expect(owner.getByTestId("refusal-details").textContent()).resolves.toContain("not https");
      expect((await sessionRequest(owner, "GET", `/orgs/${orgId}/webhooks`)).items).toEqual([]);

      await owner.getByLabel("URL (public https)").fill(`${receiver.url}/hooks`);
      await owner.getByLabel("Description").fill("the ledger");
      await owner.getByRole("button", { name: "Add endpoint" }).click();
      secret = (await owner.getByTestId("secret").textContent())!;
      expect(secret).toMatch(/^whsec_/);
      await screenshot(owner, "webhook-created", dir);
      const listed = await sessionRequest(owner, "GET", `/orgs/${orgId}/webhooks`);
      expect(listed.items).toHaveLength(1);
      expect(listed.items[0].event_types).toEqual(["receipt.created", "policy.activated"]);
      endpointId = listed.items[0].id;
      expect(JSON.stringify(listed)).not.toContain(secret);

      // Never again: not on the list after a reload, not on the endpoint's page.
      await owner.reload();
      await owner.getByTestId("webhook-endpoints").getByText("the ledger").waitFor();
      expect(await owner.content()).not.toContain(secret);
      await owner.getByRole("link", { name: `${receiver.url}/hooks` }).click();
      await owner.getByRole("heading", { name: "Webhook endpoint" }).waitFor();
      expect(await owner.content()).not.toContain(secret);
    },
  );

  it("changes the event types an endpoint subscribes to", { timeout: 60_000 }, async () => {
    await owner.goto(`/orgs/${orgId}/webhooks/${endpointId}`);
    await owner.getByLabel("policy.activated").uncheck();
    await owner.getByLabel("action.denied").check();
    await owner.getByRole("button", { name: "Save the endpoint" }).click();
    await expect
      .poll(
        async () =>
          (await sessionRequest(owner, "GET", `/orgs/${orgId}/webhooks/${endpointId}`)).webhook.event_types,
      )
      .toEqual(["action.denied", "receipt.created"]);
    // None at all is refused, and changes nothing.
    await owner.getByLabel("receipt.created").uncheck();
    await owner.getByLabel("action.denied").uncheck();
    await owner.getByRole("button", { name: "Save the endpoint" }).click();
    await alert(owner, "VALIDATION_FAILED").waitFor();
    expect(
      (await sessionRequest(owner, "GET", `/orgs/${orgId}/webhooks/${endpointId}`)).webhook.event_types,
    ).toEqual(["action.denied", "receipt.created"]);
  });
});

describe("deliveries", () => {
  it(
    "sends a real test event to the https receiver, signed with the secret shown, and logs the attempt",
    { timeout: 60_000 },
    async () => {
      await owner.goto(`/orgs/${orgId}/webhooks/${endpointId}`);
      const before = receiver.requests.length;
      await owner.getByRole("button", { name: "Send a test event" }).click();
      await receiver.received(before + 1);
      const got = receiver.requests[before]!;
      expect(got.path).toBe("/hooks");
      expect(JSON.parse(got.raw.toString()).type).toBe("webhook.test");
      expect(
        verifyWebhook(
          got.raw,
          got.headers["service-signature"] as string,
          secret,
          world.upstreams!.clock.now(),
        ),
      ).toMatchObject({ valid: true });

      const delivery = owner.getByTestId("deliveries").locator('[data-state="delivered"]');
      await delivery.waitFor({ timeout: 20_000 });
      await expect(delivery.getByTestId("attempt-outcome").allTextContents()).resolves.toEqual(["HTTP 200"]);
      await expect(delivery.getByTestId("attempt-duration").first().textContent()).resolves.toMatch(
        /^\d+ ms$/,
      );
      await screenshot(owner, "webhook-deliveries", dir);
    },
  );

  it(
    "shows every failed attempt of a delivery, and delivers it again on Redeliver",
    { timeout: 120_000 },
    async () => {
      receiver.answer = failing;
      await owner.goto(`/orgs/${orgId}/webhooks/${endpointId}`);
      const before = receiver.requests.length;
      await owner.getByRole("button", { name: "Send a test event" }).click();
      // Eight attempts, each retry hours apart on the worker's clock: moved on once the attempt is logged.
      for (let n = 1; n <= 8; n++) {
        await receiver.received(before + n);
        await expect.poll(() => loggedAttempts(), { timeout: 20_000 }).toBe(n);
        if (n < 8) world.upstreams!.clock.advance(7 * 3600 * 1000);
      }
      const failed = owner.getByTestId("deliveries").locator('[data-state="failed"]');
      await failed.waitFor({ timeout: 20_000 });
      await expect(failed.getByTestId("attempt-outcome").allTextContents()).resolves.toEqual(
        Array(8).fill("HTTP 500"),
      );
      await screenshot(owner, "webhook-failed", dir);
      const eventId = receiver.requests[before]!.headers["service-event-id"];

      receiver.answer = ok;
      await failed.getByRole("button", { name: "Redeliver" }).click();
      await receiver.received(before + 9);
      expect(receiver.requests[before + 8]!.headers["service-event-id"]).toBe(eventId);
      const redelivered = owner.getByTestId("deliveries").locator('[data-state="delivered"]').first();
      await expect
        .poll(() => redelivered.getByTestId("attempt-outcome").allTextContents(), { timeout: 20_000 })
        .toEqual([...Array(8).fill("HTTP 500"), "HTTP 200"]);
      await expect(owner.getByTestId("deliveries").locator('[data-state="failed"]').count()).resolves.toBe(0);
    },
  );

  it("shows a new secret once on rotation, the previous one still signing", { timeout: 60_000 }, async () => {
    await owner.goto(`/orgs/${orgId}/webhooks/${endpointId}`);
    await owner.getByRole("button", { name: "Rotate the secret" }).click();
    // The confirmation leads with the consequence: the old secret stops signing in 24 hours.
    const rotation = owner.getByRole("dialog", { name: "Rotate the signing secret" });
    await expect(rotation.textContent()).resolves.toContain("In 24 hours the current secret stops signing");
    await rotation.getByRole("button", { name: "Make a new secret" }).click();
    const rotated = (await owner.getByTestId("secret").textContent())!;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await owner.getByText("The previous secret also signs deliveries until").waitFor();
    const before = receiver.requests.length;
    await owner.getByRole("button", { name: "Send a test event" }).click();
    await receiver.received(before + 1);
    const got = receiver.requests[before]!;
    const now = world.upstreams!.clock.now();
    for (const s of [rotated, secret])
      expect(verifyWebhook(got.raw, got.headers["service-signature"] as string, s, now)).toMatchObject({
        valid: true,
      });
    await owner.reload();
    await owner.getByRole("heading", { name: "Webhook endpoint" }).waitFor();
    expect(await owner.content()).not.toContain(rotated);
  });

  it(
    "answers ENDPOINT_DISABLED to a test of a disabled endpoint, sending nothing",
    { timeout: 60_000 },
    async () => {
      await owner.goto(`/orgs/${orgId}/webhooks/${endpointId}`);
      await owner.getByRole("checkbox", { name: /^Enabled/ }).uncheck();
      await owner.getByRole("button", { name: "Save the endpoint" }).click();
      await owner.getByTestId("endpoint-enabled").getByText("disabled").waitFor();
      const before = receiver.requests.length;
      const count = (await sessionRequest(owner, "GET", `/orgs/${orgId}/webhooks/${endpointId}/deliveries`))
        .items.length;
      await owner.getByRole("button", { name: "Send a test event" }).click();
      await alert(owner, "ENDPOINT_DISABLED").waitFor();
      expect(
        (await sessionRequest(owner, "GET", `/orgs/${orgId}/webhooks/${endpointId}/deliveries`)).items,
      ).toHaveLength(count);
      expect(receiver.requests.length).toBe(before);
      await owner.getByRole("checkbox", { name: /^Enabled/ }).check();
      await owner.getByRole("button", { name: "Save the endpoint" }).click();
      await owner.getByTestId("endpoint-enabled").getByText("enabled").waitFor();
    },
  );

  it("answers RATE_LIMITED past five tests and redeliveries a minute", { timeout: 60_000 }, async () => {
    const other = (
      await sessionRequest(owner, "POST", `/orgs/${orgId}/webhooks`, {
        url: `${receiver.url}/other`,
        event_types: ["receipt.created"],
      })
    ).webhook;
    await owner.goto(`/orgs/${orgId}/webhooks/${other.id}`);
    const send = owner.getByRole("button", { name: "Send a test event" });
    for (let n = 1; n <= 5; n++) {
      await send.click();
      await expect.poll(() => deliveries().count()).toBe(n);
    }
    await send.click();
    await alert(owner, "RATE_LIMITED").waitFor();
    await expect(owner.getByTestId("refusal-details").textContent()).resolves.toMatch(
      /Try again in \d+ seconds/,
    );
    await screenshot(owner, "webhook-rate-limited", dir);
    expect(
      (await sessionRequest(owner, "GET", `/orgs/${orgId}/webhooks/${other.id}/deliveries`)).items,
    ).toHaveLength(5);

    // Deleted after a confirmation, with its deliveries.
    await owner.getByRole("button", { name: "Delete the endpoint" }).click();
    await owner
      .getByRole("dialog", { name: "Delete the endpoint" })
      .getByRole("button", { name: "Delete the endpoint" })
      .click();
    await owner.getByRole("heading", { name: "Webhooks" }).waitFor();
    await expect(owner.getByRole("link", { name: `${receiver.url}/other` }).count()).resolves.toBe(0);
    expect(
      (await sessionRequest(owner, "GET", `/orgs/${orgId}/webhooks`)).items.map((e: { id: string }) => e.id),
    ).toEqual([endpointId]);
  });
});

describe("roles and accessibility", () => {
  it("shows a viewer no webhooks at all", { timeout: 60_000 }, async () => {
    await viewer.goto(`/orgs/${orgId}`);
    const nav = viewer.getByRole("navigation", { name: "Organization" });
    await nav.getByRole("link", { name: "Tools" }).waitFor();
    await expect(nav.getByRole("link", { name: "Webhooks" }).count()).resolves.toBe(0);
    for (const path of [`/orgs/${orgId}/webhooks`, `/orgs/${orgId}/webhooks/${endpointId}`]) {
      await viewer.goto(path);
      await alert(viewer, "FORBIDDEN").first().waitFor();
      await expect(viewer.locator("main button").count(), path).resolves.toBe(0);
      await expect(viewer.locator("main form").count(), path).resolves.toBe(0);
      expect(await viewer.content()).not.toContain(receiver.url);
    }
  });

  it("has no serious or critical axe-core violation on the webhook pages", { timeout: 60_000 }, async () => {
    for (const path of [`/orgs/${orgId}/webhooks`, `/orgs/${orgId}/webhooks/${endpointId}`]) {
      await owner.goto(path);
      await owner.locator("main h1").first().waitFor();
      await owner.getByText("Loading…").waitFor({ state: "detached" });
      expect(await seriousViolations(owner), path).toEqual([]);
    }
  });
});
