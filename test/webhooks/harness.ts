/**
 * What the webhook tests share: a database, a Cloud API with webhooks on, a
 * signed-in owner with an organization, a controllable clock, the test CA,
 * and delivery workers on the same database.
 */
import { randomBytes } from "node:crypto";
import type { Resolve } from "../../core/src/net/index.js";
import type { Plan } from "../../core/src/plans/index.js";
import { DeliveryWorker, type DeliveryWorkerOptions } from "../../api/src/webhooks/delivery-worker.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { startCloudApi, type Browser, type CloudApi } from "../fixtures/cloud-api.js";
import { createTestCa, type TestCa } from "../fixtures/https-receiver.js";
import { TestClock } from "../fixtures/test-clock.js";

export { TestClock };

export interface WebhookHarness {
  db: TestDatabase;
  api: CloudApi;
  owner: Browser;
  ownerId: string;
  org: string;
  clock: TestClock;
  ca: TestCa;
  credentialKey: Buffer;
  resolver: { answers: Record<string, string[]>; resolve: Resolve };
  worker(extra?: Partial<DeliveryWorkerOptions>): DeliveryWorker;
  createEndpoint(
    url: string,
    eventTypes?: string[],
    as?: Browser,
    org?: string,
  ): Promise<{ id: string; secret: string }>;
  /** Writes an event the way the Gateway and the Cloud API do: a row in `events`. */
  emit(type: string, data?: unknown, org?: string): Promise<string>;
  newOrganization(as?: Browser, plan?: Plan): Promise<string>;
  close(): Promise<void>;
}

export async function startWebhookHarness(
  opts: { allowLoopbackUrls?: boolean } = {},
): Promise<WebhookHarness> {
  const db = await createTestDatabase();
  const clock = new TestClock();
  const ca = createTestCa();
  const credentialKey = randomBytes(32);
  const answers: Record<string, string[]> = {};
  const resolve: Resolve = async (host) => {
    const a = answers[host];
    if (!a) throw new Error(`ENOTFOUND ${host}`);
    return a.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  const allowLoopbackUrls = opts.allowLoopbackUrls ?? true;
  const api = await startCloudApi(db, {
    extra: { webhooks: { credentialKey, allowLoopbackUrls, resolve, now: clock.now } },
  });
  const owner = api.browser();
  const { userId: ownerId } = await owner.signUpAndIn(api.smtp);
  const h: WebhookHarness = {
    db,
    api,
    owner,
    ownerId,
    org: "",
    clock,
    ca,
    credentialKey,
    resolver: { answers, resolve },
    worker: (extra = {}) =>
      new DeliveryWorker({
        pool: db.pool,
        credentialKey,
        allowLoopbackUrls,
        resolve,
        ca: [ca.caPem],
        now: clock.now,
        ...extra,
      }),
    async createEndpoint(url, eventTypes = ["receipt.created"], as = owner, org = h.org) {
      const res = await as.post(`/orgs/${org}/webhooks`, { url, event_types: eventTypes });
      if (res.status !== 201) throw new Error(`create endpoint ${res.status} ${res.text}`);
      return { id: res.body.webhook.id, secret: res.body.secret };
    },
    async emit(type, data = { n: 1 }, org = h.org) {
      const { rows } = await db.pool.query<{ id: string }>(
        "insert into events (organization_id, type, data) values ($1, $2, $3) returning id",
        [org, type, data],
      );
      return rows[0]!.id;
    },
    async newOrganization(as = owner, plan) {
      const res = await as.post("/orgs", { name: `Org ${randomBytes(3).toString("hex")}` });
      if (res.status !== 201) throw new Error(`create org ${res.status} ${res.text}`);
      const id = res.body.organization.id as string;
      if (plan) await db.pool.query("update organizations set plan = $2 where id = $1", [id, plan]);
      return id;
    },
    async close() {
      await api.close();
      await db.drop();
      ca.dispose();
    },
  };
  h.org = await h.newOrganization();
  return h;
}
