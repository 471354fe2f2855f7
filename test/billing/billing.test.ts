/**
 * Billing through Stripe end to end (docs/billing.md): the official `stripe` package against
 * stripe-mock (Stripe's own mock of its API, test/stripe-mock) for every call the Cloud API makes,
 * and events pushed to the Cloud API's route signed with the SDK's own test-header helper. An
 * owner buys a plan (limits change at once), opens the portal, cancels (scheduled_cancel, then the
 * free plan with nothing deleted or disabled); every billing code of SPEC 7.2 in its situation; a
 * forged, stale or replayed push is refused or ignored and changes nothing.
 */
import { createServer, type Server } from "node:net";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { createAgent } from "../fixtures/organization.js";
import { Browser, randomIp, startCloudApi, type CloudApi } from "../fixtures/cloud-api.js";
import { startStripeMock, type StripeMock } from "../stripe-mock/index.js";
import type { BillingOptions } from "../../api/src/billing/config.js";
import {
  EVENTS_PATH as events,
  SECRET_KEY,
  StripeSide,
  WEBHOOK_SECRET,
  now,
  prices,
  type Signing,
} from "./stripe-side.js";

let db: TestDatabase;
let mock: StripeMock;
let api: CloudApi;
/** Stripe's side: fixtures read from stripe-mock, pushes signed with the SDK's helper. */
let side: StripeSide;
let stripe: StripeSide["stripe"];

const billingAt = (apiUrl: string, extra: Partial<BillingOptions> = {}): BillingOptions => ({
  secretKey: SECRET_KEY,
  webhookSecret: WEBHOOK_SECRET,
  prices,
  apiUrl,
  ...extra,
});

beforeAll(async () => {
  db = await createTestDatabase();
  mock = await startStripeMock();
  api = await startCloudApi(db, { defaultPlan: "developer", extra: { billing: billingAt(mock.url) } });
  side = new StripeSide(mock.url, api.base);
  stripe = side.stripe;
});
afterAll(async () => {
  await api?.close();
  await mock?.stop();
  await db?.drop();
});

const count = async (sql: string, args: unknown[] = []) => Number((await db.pool.query(sql, args)).rows[0].n);
const planOf = async (org: string) =>
  (await db.pool.query("select plan from organizations where id = $1", [org])).rows[0].plan as string | null;

async function ownerWithOrg(): Promise<{ owner: Browser; org: string }> {
  const owner = api.browser();
  await owner.signUpAndIn(api.smtp);
  const res = await owner.post("/orgs", { name: `Buyer ${randomBytes(3).toString("hex")}` });
  expect(res.status).toBe(201);
  return { owner, org: res.body.organization.id };
}

const push = (e: object, sign?: Signing) => side.push(e, sign);
const event = (type: string, object: object, created?: number) => side.event(type, object, created);
const subscription = (...a: Parameters<StripeSide["subscription"]>) => side.subscription(...a);
const checkoutSession = (...a: Parameters<StripeSide["checkoutSession"]>) => side.checkoutSession(...a);

async function newAgent(owner: Browser, org: string) {
  return owner.post(`/orgs/${org}/agents`, { name: `agent-${randomBytes(4).toString("hex")}` });
}

describe("an owner buys a plan through Stripe", () => {
  it("checkout, the verified push, limits at once, the portal, cancelling at period end, the free plan again", async () => {
    const { owner, org } = await ownerWithOrg();
    for (let i = 0; i < 5; i++) await createAgent(db.pool, org);
    const sixth = await newAgent(owner, org);
    expect(sixth.status).toBe(402);
    expect(sixth.body.error.code).toBe("PLAN_LIMIT_EXCEEDED");

    const before = await owner.get(`/orgs/${org}/billing`);
    expect(before.body).toMatchObject({
      configured: true,
      plan: "developer",
      purchasable: ["startup", "growth"],
      subscription: null,
    });

    const checkout = await owner.post(`/orgs/${org}/billing/checkout`, { plan: "startup" });
    expect(checkout.status).toBe(201);
    expect(checkout.body.url).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    expect(Date.parse(checkout.body.expires_at)).toBeGreaterThan(Date.now());
    const { rows: sessions } = await db.pool.query(
      "select session_id, plan from billing_checkouts where organization_id = $1",
      [org],
    );
    expect(sessions).toEqual([{ session_id: expect.stringMatching(/^cs_/), plan: "startup" }]);
    const customer = (
      await db.pool.query("select customer_id from billing_customers where organization_id = $1", [org])
    ).rows[0].customer_id as string;
    expect(customer).toMatch(/^cus_/);
    // Nothing moves before the provider says the checkout is paid.
    expect(await planOf(org)).toBeNull();

    const subId = `sub_test_${randomBytes(6).toString("hex")}`;
    const paid = await push(
      event("checkout.session.completed", await checkoutSession(sessions[0].session_id, customer, subId)),
    );
    expect(paid.status).toBe(200);
    expect(paid.body).toEqual({ received: true, duplicate: false });
    const bought = await owner.get(`/orgs/${org}/billing`);
    expect(bought.body).toMatchObject({
      plan: "startup",
      subscription: { status: "active", plan: "startup" },
      quotas: { agents: 50, members: 10 },
    });
    // The limit changed at once: the sixth agent is created now.
    expect((await newAgent(owner, org)).status).toBe(201);

    const portal = await owner.post(`/orgs/${org}/billing/portal`);
    expect(portal.status).toBe(201);
    expect(portal.body).toMatchObject({ url: expect.stringMatching(/^https:\/\//), expires_at: null });

    // Cancelled in the portal: Stripe keeps it active until the period's end.
    const periodEnd = now() + 20 * 86400;
    const cancelled = await push(
      event(
        "customer.subscription.updated",
        await subscription(subId, customer, prices.startup, { cancel_at_period_end: true, periodEnd }),
      ),
    );
    expect(cancelled.status).toBe(200);
    const scheduled = await owner.get(`/orgs/${org}/billing`);
    expect(scheduled.body).toMatchObject({
      plan: "startup",
      subscription: {
        status: "scheduled_cancel",
        plan: "startup",
        current_period_end: new Date(periodEnd * 1000).toISOString(),
      },
    });

    // The period ends: Stripe deletes the subscription; the free plan's limits, nothing deleted or disabled.
    const agentsBefore = await count(
      "select count(*) as n from agents where organization_id = $1 and status = 'active'",
      [org],
    );
    expect(agentsBefore).toBe(6);
    const ended = await push(
      event(
        "customer.subscription.deleted",
        await subscription(subId, customer, prices.startup, { status: "canceled" }),
      ),
    );
    expect(ended.status).toBe(200);
    const free = await owner.get(`/orgs/${org}/billing`);
    expect(free.body).toMatchObject({ plan: "developer", subscription: null, quotas: { agents: 5 } });
    expect((await owner.get(`/orgs/${org}`)).body.organization.plan).toBe("developer");
    const listed = await owner.get(`/orgs/${org}/agents`);
    expect(listed.body.items).toHaveLength(6);
    expect(listed.body.items.every((a: { status: string }) => a.status === "active")).toBe(true);
    const overQuota = await newAgent(owner, org);
    expect(overQuota.status).toBe(402);
    expect(overQuota.body.error.code).toBe("PLAN_LIMIT_EXCEEDED");
    expect(await count("select count(*) as n from agents where organization_id = $1", [org])).toBe(6);
  });

  it("moves to the plan of a subscription's own events (past_due, a late event, a downgrade keeping everything) and back", async () => {
    const { owner, org } = await ownerWithOrg();
    expect((await owner.post(`/orgs/${org}/billing/checkout`, { plan: "startup" })).status).toBe(201);
    const customer = (
      await db.pool.query("select customer_id from billing_customers where organization_id = $1", [org])
    ).rows[0].customer_id as string;
    const subId = `sub_test_${randomBytes(6).toString("hex")}`;
    const t = now();
    expect(
      (
        await push(
          event("customer.subscription.created", await subscription(subId, customer, prices.growth), t),
        )
      ).status,
    ).toBe(200);
    expect((await owner.get(`/orgs/${org}/billing`)).body).toMatchObject({
      plan: "growth",
      subscription: { status: "active", plan: "growth" },
    });
    await push(
      event(
        "customer.subscription.updated",
        await subscription(subId, customer, prices.growth, { status: "past_due" }),
        t + 2,
      ),
    );
    expect((await owner.get(`/orgs/${org}/billing`)).body).toMatchObject({
      plan: "growth",
      subscription: { status: "past_due" },
    });
    // An older event arriving late changes nothing.
    const late = await push(
      event("customer.subscription.updated", await subscription(subId, customer, prices.startup), t + 1),
    );
    expect(late.status).toBe(200);
    expect((await owner.get(`/orgs/${org}/billing`)).body).toMatchObject({
      plan: "growth",
      subscription: { status: "past_due", plan: "growth" },
    });
    // A downgrade in the portal (growth to startup) with more agents than startup allows: all kept, none disabled.
    for (let i = 0; i < 51; i++) await createAgent(db.pool, org);
    await push(
      event("customer.subscription.updated", await subscription(subId, customer, prices.startup), t + 3),
    );
    expect((await owner.get(`/orgs/${org}/billing`)).body).toMatchObject({
      plan: "startup",
      subscription: { status: "active", plan: "startup" },
      quotas: { agents: 50 },
    });
    expect(
      await count("select count(*) as n from agents where organization_id = $1 and status = 'active'", [org]),
    ).toBe(51);
    const over = await newAgent(owner, org);
    expect(over.status).toBe(402);
    expect(over.body.error.code).toBe("PLAN_LIMIT_EXCEEDED");
    await push(
      event(
        "customer.subscription.updated",
        await subscription(subId, customer, prices.startup, { status: "unpaid" }),
        t + 4,
      ),
    );
    expect((await owner.get(`/orgs/${org}/billing`)).body).toMatchObject({
      plan: "developer",
      subscription: null,
    });
    expect(
      await count("select count(*) as n from agents where organization_id = $1 and status = 'active'", [org]),
    ).toBe(51);
  });

  it("moves only the organization whose customer the event names", async () => {
    const a = await ownerWithOrg();
    const b = await ownerWithOrg();
    for (const o of [a, b])
      expect((await o.owner.post(`/orgs/${o.org}/billing/checkout`, { plan: "startup" })).status).toBe(201);
    const customerOf = async (org: string) =>
      (await db.pool.query("select customer_id from billing_customers where organization_id = $1", [org]))
        .rows[0].customer_id as string;
    expect(await customerOf(a.org)).not.toBe(await customerOf(b.org));
    const res = await push(
      event(
        "customer.subscription.created",
        await subscription(
          `sub_test_${randomBytes(6).toString("hex")}`,
          await customerOf(a.org),
          prices.growth,
        ),
      ),
    );
    expect(res.status).toBe(200);
    expect(await planOf(a.org)).toBe("growth");
    expect(await planOf(b.org)).toBeNull();
    expect((await b.owner.get(`/orgs/${b.org}/billing`)).body).toMatchObject({
      plan: "developer",
      subscription: null,
    });
    // A customer this installation never made moves no one.
    const stranger = await push(
      event(
        "customer.subscription.created",
        await subscription("sub_stranger", "cus_stranger", prices.growth),
      ),
    );
    expect(stranger.body).toEqual({ received: true, duplicate: false });
    expect(await planOf(b.org)).toBeNull();
  });
});

describe("the billing codes of SPEC 7.2", () => {
  it("PLAN_NOT_PURCHASABLE 422 with details.purchasable, and nothing recorded", async () => {
    const { owner, org } = await ownerWithOrg();
    for (const plan of ["scale", "developer", "platinum"]) {
      const res = await owner.post(`/orgs/${org}/billing/checkout`, { plan });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({
        code: "PLAN_NOT_PURCHASABLE",
        details: { purchasable: ["startup", "growth"] },
      });
    }
    expect(await count("select count(*) as n from billing_checkouts where organization_id = $1", [org])).toBe(
      0,
    );
    expect(await count("select count(*) as n from billing_customers where organization_id = $1", [org])).toBe(
      0,
    );
    const invalid = await owner.post(`/orgs/${org}/billing/checkout`, {});
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe("VALIDATION_FAILED");
  });

  it("CHECKOUT_IN_PROGRESS 409 while a checkout is open; SUBSCRIPTION_ACTIVE 409 once subscribed", async () => {
    const { owner, org } = await ownerWithOrg();
    expect((await owner.post(`/orgs/${org}/billing/checkout`, { plan: "startup" })).status).toBe(201);
    const again = await owner.post(`/orgs/${org}/billing/checkout`, { plan: "growth" });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("CHECKOUT_IN_PROGRESS");
    expect(await count("select count(*) as n from billing_checkouts where organization_id = $1", [org])).toBe(
      1,
    );

    // The session expires unpaid (Stripe says so): a new checkout may start.
    const { session_id } = (
      await db.pool.query("select session_id from billing_checkouts where organization_id = $1", [org])
    ).rows[0];
    const customer = (
      await db.pool.query("select customer_id from billing_customers where organization_id = $1", [org])
    ).rows[0].customer_id as string;
    const expired = await stripe.checkout.sessions.retrieve(session_id);
    expect(
      (await push(event("checkout.session.expired", { ...expired, id: session_id, status: "expired" })))
        .status,
    ).toBe(200);
    expect((await owner.post(`/orgs/${org}/billing/checkout`, { plan: "growth" })).status).toBe(201);
    expect(await count("select count(*) as n from billing_customers where organization_id = $1", [org])).toBe(
      1,
    );

    const subId = `sub_test_${randomBytes(6).toString("hex")}`;
    await push(
      event(
        "customer.subscription.created",
        await subscription(subId, customer, prices.growth, { status: "trialing" }),
      ),
    );
    expect((await owner.get(`/orgs/${org}/billing`)).body.subscription).toMatchObject({ status: "trialing" });
    const active = await owner.post(`/orgs/${org}/billing/checkout`, { plan: "startup" });
    expect(active.status).toBe(409);
    expect(active.body.error.code).toBe("SUBSCRIPTION_ACTIVE");
  });

  it("two checkouts of one organization at once: one session, the other CHECKOUT_IN_PROGRESS", async () => {
    const { owner, org } = await ownerWithOrg();
    const answers = await Promise.all([
      owner.post(`/orgs/${org}/billing/checkout`, { plan: "startup" }),
      owner.post(`/orgs/${org}/billing/checkout`, { plan: "growth" }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    expect(answers.find((a) => a.status === 409)!.body.error.code).toBe("CHECKOUT_IN_PROGRESS");
    expect(await count("select count(*) as n from billing_checkouts where organization_id = $1", [org])).toBe(
      1,
    );
    expect(await count("select count(*) as n from billing_customers where organization_id = $1", [org])).toBe(
      1,
    );
  });

  it("NO_BILLING_CUSTOMER 409 for the portal before any checkout", async () => {
    const { owner, org } = await ownerWithOrg();
    const res = await owner.post(`/orgs/${org}/billing/portal`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("NO_BILLING_CUSTOMER");
  });

  it("BILLING_PROVIDER_ERROR 502 with details.reason when Stripe does not answer or cannot be reached", async () => {
    // A server that accepts connections and never answers, and a port nothing listens on.
    const silent: Server = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const silentPort = (silent.address() as { port: number }).port;
    const closed: Server = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const closedPort = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    for (const [url, reason] of [
      [`http://127.0.0.1:${silentPort}`, "timeout"],
      [`http://127.0.0.1:${closedPort}`, "unreachable"],
    ] as const) {
      const broken = await startCloudApi(db, {
        defaultPlan: "developer",
        extra: { billing: billingAt(url, { timeoutMs: 300 }) },
      });
      try {
        const owner = broken.browser();
        await owner.signUpAndIn(broken.smtp);
        const org = (await owner.post("/orgs", { name: "Offline" })).body.organization.id;
        const res = await owner.post(`/orgs/${org}/billing/checkout`, { plan: "startup" });
        expect(res.status).toBe(502);
        expect(res.body.error).toMatchObject({ code: "BILLING_PROVIDER_ERROR", details: { reason } });
        expect(
          await count("select count(*) as n from billing_checkouts where organization_id = $1", [org]),
        ).toBe(0);
        expect(
          await count("select count(*) as n from billing_customers where organization_id = $1", [org]),
        ).toBe(0);
        expect(broken.logs.join("\n")).not.toContain(SECRET_KEY);
      } finally {
        await broken.close();
      }
    }
    silent.close();
  });

  it("unconfigured (the default): configured false, checkout, portal and the event route 503 without Retry-After", async () => {
    const plain = await startCloudApi(db, { defaultPlan: "developer" });
    try {
      const owner = plain.browser();
      await owner.signUpAndIn(plain.smtp);
      const org = (await owner.post("/orgs", { name: "Self-hosted" })).body.organization.id;
      expect((await owner.get(`/orgs/${org}/billing`)).body).toMatchObject({
        configured: false,
        purchasable: [],
        subscription: null,
      });
      for (const res of [
        await owner.post(`/orgs/${org}/billing/checkout`, { plan: "startup" }),
        await owner.post(`/orgs/${org}/billing/checkout`, {}),
        await owner.post(`/orgs/${org}/billing/portal`),
        await new Browser(plain.base, randomIp(), null).request("POST", events, Buffer.from("{}"), {
          "content-type": "application/json",
        }),
      ]) {
        expect(res.status).toBe(503);
        expect(res.body.error.code).toBe("SERVICE_UNAVAILABLE");
        expect(res.headers.get("retry-after")).toBeNull();
      }
    } finally {
      await plain.close();
    }
  });
});

describe("pushes that are forged, stale or replayed", () => {
  it("refuses a push not signed with the secret, altered, unsigned or too old, and changes nothing", async () => {
    const { owner, org } = await ownerWithOrg();
    expect((await owner.post(`/orgs/${org}/billing/checkout`, { plan: "startup" })).status).toBe(201);
    const customer = (
      await db.pool.query("select customer_id from billing_customers where organization_id = $1", [org])
    ).rows[0].customer_id as string;
    const sub = await subscription(`sub_test_${randomBytes(6).toString("hex")}`, customer, prices.growth);
    const eventsBefore = await count("select count(*) as n from billing_events");
    const attempts = [
      await push(event("customer.subscription.created", sub), { secret: "whsec_notthesecret" }),
      await push(event("customer.subscription.created", sub), {
        alter: (p) => p.replace(prices.growth, prices.startup),
      }),
      await push(event("customer.subscription.created", sub), { header: "" }),
      await push(event("customer.subscription.created", sub), { header: "t=1,v1=00" }),
      // Signed with the right secret ten minutes ago: beyond the 5-minute tolerance.
      await push(event("customer.subscription.created", sub), { timestamp: now() - 600 }),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("INVALID_REQUEST");
    }
    expect(await planOf(org)).toBeNull();
    expect(
      await count("select count(*) as n from billing_subscriptions where organization_id = $1", [org]),
    ).toBe(0);
    expect(await count("select count(*) as n from billing_events")).toBe(eventsBefore);
  });

  it("refuses a signed event whose object is not what its type carries, recording nothing", async () => {
    const eventsBefore = await count("select count(*) as n from billing_events");
    const odd = event("customer.subscription.updated", { id: "sub_x", object: "subscription" });
    const res = await push(odd);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("INVALID_REQUEST");
    expect(await count("select count(*) as n from billing_events")).toBe(eventsBefore);
    // An event of a type billing does not act on is received, and changes nothing but its id's record.
    const other = await push(event("invoice.paid", { id: "in_x", object: "invoice" }));
    expect(other.body).toEqual({ received: true, duplicate: false });
  });

  it("answers a replayed event id 200 duplicate and applies nothing again", async () => {
    const { owner, org } = await ownerWithOrg();
    expect((await owner.post(`/orgs/${org}/billing/checkout`, { plan: "startup" })).status).toBe(201);
    const customer = (
      await db.pool.query("select customer_id from billing_customers where organization_id = $1", [org])
    ).rows[0].customer_id as string;
    const subId = `sub_test_${randomBytes(6).toString("hex")}`;
    const t = now();
    const created = event(
      "customer.subscription.created",
      await subscription(subId, customer, prices.startup),
      t,
    );
    expect((await push(created)).body).toEqual({ received: true, duplicate: false });
    const deleted = event(
      "customer.subscription.deleted",
      await subscription(subId, customer, prices.startup, { status: "canceled" }),
      t + 1,
    );
    expect((await push(deleted)).status).toBe(200);
    expect(await planOf(org)).toBeNull();
    // The same event again (freshly signed, as an attacker replaying a captured body would need): no effect.
    const replay = await push(created);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual({ received: true, duplicate: true });
    expect(await planOf(org)).toBeNull();
    expect((await owner.get(`/orgs/${org}/billing`)).body).toMatchObject({
      plan: "developer",
      subscription: null,
    });
  });
});
