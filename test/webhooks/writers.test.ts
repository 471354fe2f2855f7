/**
 * An event written by another part of the service gets its deliveries from
 * the database, in the writer's transaction: here the Cloud API's policy
 * activation (SPEC 3.3: webhook `policy.activated`), delivered to a real
 * HTTPS receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newPolicy } from "../fixtures/policy-rollout.js";
import { startReceiver, type Receiver } from "../fixtures/https-receiver.js";
import { startWebhookHarness, type WebhookHarness } from "./harness.js";

let h: WebhookHarness;
let rx: Receiver;

beforeAll(async () => {
  h = await startWebhookHarness();
  rx = await startReceiver(h.ca);
});
afterAll(async () => {
  await rx.close();
  await h.close();
});

describe("events written by the Cloud API", () => {
  it("a policy activation is delivered as policy.activated to subscribers only", async () => {
    const subscriber = await h.createEndpoint(`${rx.url}/policies`, ["policy.activated"]);
    const other = await h.createEndpoint(`${rx.url}/receipts`, ["receipt.created"]);
    const { policyId, versionId } = await newPolicy(h.owner, h.org);
    const activated = await h.owner.post(
      `/orgs/${h.org}/policies/${policyId}/versions/${versionId}/activate`,
      {
        expected_active_version_id: null,
      },
    );
    expect(activated.status, activated.text).toBe(200);
    // The delivery exists already, before any worker ran.
    const { rows } = await h.db.pool.query<{ endpoint_id: string; state: string }>(
      "select d.endpoint_id, d.state from webhook_deliveries d join events e on e.id = d.event_id where e.type = 'policy.activated' and e.organization_id = $1",
      [h.org],
    );
    expect(rows).toEqual([{ endpoint_id: subscriber.id, state: "pending" }]);

    await h.worker().runOnce();
    expect(rx.requests.map((r) => r.path)).toEqual(["/policies"]);
    const body = JSON.parse(rx.requests[0]!.raw.toString("utf8"));
    expect(body).toMatchObject({
      type: "policy.activated",
      organization_id: h.org,
      data: { policy_id: policyId, version_id: versionId, version: 1, trigger: "activate" },
    });
    expect((await h.owner.get(`/orgs/${h.org}/webhooks/${other.id}/deliveries`)).body.items).toHaveLength(0);
  });
});
