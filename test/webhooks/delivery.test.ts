/**
 * The delivery worker against real HTTPS receivers (SPEC 6.2-6.4): headers,
 * body and signature checked by an implementation written here, the retry
 * schedule on a controllable clock, Failed after 8, redelivery, rotation,
 * redirects, slow and huge answers, concurrency limits, address checks at
 * connection time.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ok, startReceiver, type Receiver } from "../fixtures/https-receiver.js";
import { startWebhookHarness, type WebhookHarness } from "./harness.js";
import type { JsonBody } from "../fixtures/json.js";

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
beforeEach(async () => {
  // Each test in its own organization, and what earlier tests left pending never sent again.
  h.org = await h.newOrganization();
  await h.db.pool.query("update webhook_deliveries set state = 'failed' where state = 'pending'");
  rx.requests.length = 0;
  rx.maxActive = 0;
  rx.answer = ok;
});

/** The receiver's side of SPEC 6.3, written independently of the service's code. */
function signaturesOf(header: string): { t: string; v1: string[] } {
  const parts = header.split(",").map((p) => p.split("=", 2) as [string, string]);
  return {
    t: parts.filter(([k]) => k === "t").map(([, v]) => v)[0]!,
    v1: parts.filter(([k]) => k === "v1").map(([, v]) => v),
  };
}
function signedBy(secret: string, t: string, raw: Buffer, v1: string): boolean {
  const mac = createHmac("sha256", secret).update(`${t}.`).update(raw).digest();
  return /^[0-9a-f]{64}$/.test(v1) && timingSafeEqual(mac, Buffer.from(v1, "hex"));
}

async function deliveries(endpointId: string) {
  const res = await h.owner.get(`/orgs/${h.org}/webhooks/${endpointId}/deliveries`);
  expect(res.status).toBe(200);
  return res.body.items as JsonBody[];
}

describe("a delivery", () => {
  it("carries the headers, body and signature of SPEC 6.2 and 6.3, and its attempt is logged", async () => {
    const a = await h.createEndpoint(`${rx.url}/a`, ["receipt.created"]);
    const b = await h.createEndpoint(`${rx.url}/b`, ["receipt.created", "policy.activated"]);
    const data = {
      receipt_id: "11111111-1111-4111-8111-111111111111",
      protected_action_id: "22222222-2222-4222-8222-222222222222",
      receipt_object_id: "sha256:abc",
      thread_id: "33333333-3333-4333-8333-333333333333",
      outcome: "final",
      bundle_sha256: "ab".repeat(32),
    };
    const eventId = await h.emit("receipt.created", data);
    await h.worker().runOnce();
    expect(rx.requests.map((r) => r.path).sort()).toEqual(["/a", "/b"]);
    for (const [endpoint, path] of [
      [a, "/a"],
      [b, "/b"],
    ] as const) {
      const r = rx.requests.find((x) => x.path === path)!;
      expect(r.headers["content-type"]).toBe("application/json");
      expect(r.headers["user-agent"]).toBe("Service-Webhooks/1.0");
      expect(r.headers["service-event-id"]).toBe(eventId);
      const [d] = await deliveries(endpoint.id);
      expect(r.headers["service-delivery-id"]).toBe(d.id);
      const body = JSON.parse(r.raw.toString("utf8"));
      expect(Object.keys(body).sort()).toEqual(["created_at", "data", "id", "organization_id", "type"]);
      expect(body).toMatchObject({ id: eventId, type: "receipt.created", organization_id: h.org, data });
      expect(body.created_at).toBe(d.event_created_at);
      const sig = signaturesOf(r.headers["service-signature"] as string);
      expect(sig.v1).toHaveLength(1);
      expect(Math.abs(Number(sig.t) - h.clock.now().getTime() / 1000)).toBeLessThan(5);
      expect(signedBy(endpoint.secret, sig.t, r.raw, sig.v1[0]!)).toBe(true);
      expect(signedBy(endpoint.secret === a.secret ? b.secret : a.secret, sig.t, r.raw, sig.v1[0]!)).toBe(
        false,
      );
      expect(d.state).toBe("delivered");
      expect(d.attempts).toHaveLength(1);
      expect(d.attempts[0]).toMatchObject({ number: 1, status_code: 200, error: null });
      expect(d.attempts[0].duration_ms).toBeGreaterThanOrEqual(0);
    }
    // Both endpoints got the same bytes.
    expect(rx.requests[0]!.raw.equals(rx.requests[1]!.raw)).toBe(true);
  });

  it("exists as soon as its event does, in the writer's transaction, and only for enabled subscribers", async () => {
    const sub = await h.createEndpoint(`${rx.url}/sub`, ["policy.activated"]);
    const other = await h.createEndpoint(`${rx.url}/other`, ["action.denied"]);
    const off = await h.createEndpoint(`${rx.url}/off`, ["policy.activated"]);
    expect((await h.owner.patch(`/orgs/${h.org}/webhooks/${off.id}`, { enabled: false })).status).toBe(200);
    const client = await h.db.pool.connect();
    try {
      await client.query("begin");
      const { rows } = await client.query<{ id: string }>(
        "insert into events (organization_id, type, data) values ($1, 'policy.activated', '{}') returning id",
        [h.org],
      );
      const inside = await client.query<{ endpoint_id: string }>(
        "select endpoint_id from webhook_deliveries where event_id = $1",
        [rows[0]!.id],
      );
      expect(inside.rows.map((r) => r.endpoint_id)).toEqual([sub.id]);
      const outside = await h.db.pool.query("select 1 from webhook_deliveries where event_id = $1", [
        rows[0]!.id,
      ]);
      expect(outside.rows).toHaveLength(0);
      await client.query("rollback");
    } finally {
      client.release();
    }
    expect(await deliveries(other.id)).toHaveLength(0);
    expect(await deliveries(off.id)).toHaveLength(0);
  });

  it("waits while its endpoint is disabled and is sent after it is enabled again", async () => {
    const e = await h.createEndpoint(`${rx.url}/paused`, ["action.allowed"]);
    await h.emit("action.allowed");
    expect((await h.owner.patch(`/orgs/${h.org}/webhooks/${e.id}`, { enabled: false })).status).toBe(200);
    await h.emit("action.allowed"); // not queued: the endpoint is disabled
    await h.worker().runOnce();
    expect(rx.requests.filter((r) => r.path === "/paused")).toHaveLength(0);
    expect((await deliveries(e.id)).map((d) => d.state)).toEqual(["pending"]);
    expect((await h.owner.patch(`/orgs/${h.org}/webhooks/${e.id}`, { enabled: true })).status).toBe(200);
    await h.worker().runOnce();
    expect(rx.requests.filter((r) => r.path === "/paused")).toHaveLength(1);
    expect((await deliveries(e.id)).map((d) => d.state)).toEqual(["delivered"]);
  });

  it("is due within the millisecond it falls in: the worker's clock has milliseconds, PostgreSQL's microseconds", async () => {
    const e = await h.createEndpoint(`${rx.url}/sub-ms`, ["action.allowed"]);
    const eventId = await h.emit("action.allowed");
    // Due 0.7 ms into a millisecond, and the worker's clock at the start of that millisecond,
    // as when the worker runs less than a millisecond after the event was written.
    const { rows } = await h.db.pool.query<{ ms: string }>(
      `update webhook_deliveries set next_attempt_at = date_trunc('milliseconds', next_attempt_at) + interval '700 microseconds'
        where event_id = $1 returning (extract(epoch from date_trunc('milliseconds', next_attempt_at)) * 1000)::bigint as ms`,
      [eventId],
    );
    const at = new Date(Number(rows[0]!.ms));
    await h.worker({ now: () => at }).runOnce();
    expect(rx.requests.filter((r) => r.path === "/sub-ms")).toHaveLength(1);
    expect((await deliveries(e.id)).map((d) => d.state)).toEqual(["delivered"]);
  });
});

describe("retries", () => {
  it("follow 30 s x 2^(n-1), end Failed after 8 attempts, and a redelivery starts 8 new ones", async () => {
    rx.answer = (_r, res) => {
      res.writeHead(500);
      res.end("no");
    };
    const e = await h.createEndpoint(`${rx.url}/retry`, ["action.denied"]);
    const eventId = await h.emit("action.denied");
    const worker = h.worker();
    const delays: number[] = [];
    await worker.runOnce();
    for (let n = 1; n < 8; n++) {
      const [d] = await deliveries(e.id);
      expect(d.state).toBe("pending");
      expect(d.attempts).toHaveLength(n);
      const due = new Date(d.next_attempt_at).getTime();
      delays.push((due - new Date(d.attempts[n - 1].finished_at).getTime()) / 1000);
      // One second early: nothing is sent.
      h.clock.advance(due - h.clock.now().getTime() - 1000);
      await worker.runOnce();
      expect((await deliveries(e.id))[0].attempts).toHaveLength(n);
      h.clock.advance(1000);
      await worker.runOnce();
    }
    expect(delays).toEqual([30, 60, 120, 240, 480, 960, 1920]);
    const [failed] = await deliveries(e.id);
    expect(failed.state).toBe("failed");
    expect(failed.next_attempt_at).toBeNull();
    expect(
      failed.attempts.map((a: { number: number; status_code: number }) => [a.number, a.status_code]),
    ).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => [n, 500]));
    h.clock.advance(24 * 3600 * 1000);
    await worker.runOnce();
    expect(rx.requests.filter((r) => r.path === "/retry")).toHaveLength(8);

    // Redeliver: the same event id, delivery id and body, 8 new attempts.
    rx.answer = ok;
    const again = await h.owner.post(`/orgs/${h.org}/webhooks/${e.id}/deliveries/${failed.id}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body.delivery).toMatchObject({ id: failed.id, state: "pending" });
    await worker.runOnce();
    const sent = rx.requests.filter((r) => r.path === "/retry");
    expect(sent).toHaveLength(9);
    expect(sent[8]!.headers["service-event-id"]).toBe(eventId);
    expect(sent[8]!.headers["service-delivery-id"]).toBe(failed.id);
    expect(sent[8]!.raw.equals(sent[0]!.raw)).toBe(true);
    const [delivered] = await deliveries(e.id);
    expect(delivered.state).toBe("delivered");
    expect(delivered.attempts.at(-1)).toMatchObject({ number: 9, status_code: 200 });

    // A delivered delivery cannot be redelivered; nothing changes.
    const refused = await h.owner.post(`/orgs/${h.org}/webhooks/${e.id}/deliveries/${failed.id}/redeliver`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("INVALID_STATE");
    expect((await deliveries(e.id))[0]).toEqual(delivered);
  });

  it("after 8 failures a redelivery to a disabled endpoint is refused and changes nothing", async () => {
    rx.answer = (_r, res) => {
      res.writeHead(503);
      res.end();
    };
    const e = await h.createEndpoint(`${rx.url}/disabled-redeliver`, ["action.denied"]);
    await h.emit("action.denied");
    const worker = h.worker();
    for (let n = 0; n < 8; n++) {
      await worker.runOnce();
      h.clock.advance(2 * 3600 * 1000);
    }
    const [failed] = await deliveries(e.id);
    expect(failed.state).toBe("failed");
    await h.owner.patch(`/orgs/${h.org}/webhooks/${e.id}`, { enabled: false });
    const refused = await h.owner.post(`/orgs/${h.org}/webhooks/${e.id}/deliveries/${failed.id}/redeliver`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("ENDPOINT_DISABLED");
    expect((await deliveries(e.id))[0]).toEqual(failed);
  });
});

describe("secret rotation", () => {
  it("signs with the new and the previous secret for 24 hours; a second rotation drops the oldest", async () => {
    const e = await h.createEndpoint(`${rx.url}/rotate`, ["policy.activated"]);
    const first = e.secret;
    const rotated = await h.owner.patch(`/orgs/${h.org}/webhooks/${e.id}`, { rotate_secret: true });
    expect(rotated.status).toBe(200);
    const second = rotated.body.secret as string;
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    expect((await h.owner.get(`/orgs/${h.org}/webhooks/${e.id}`)).text).not.toContain(second);
    const worker = h.worker();
    const sent = () => rx.requests.filter((r) => r.path === "/rotate");
    const check = (secrets: string[]) => {
      const r = sent().at(-1)!;
      const sig = signaturesOf(r.headers["service-signature"] as string);
      expect(sig.v1).toHaveLength(secrets.length);
      secrets.forEach((s, i) => expect(signedBy(s, sig.t, r.raw, sig.v1[i]!)).toBe(true));
    };

    await h.emit("policy.activated");
    await worker.runOnce();
    check([second, first]);

    // 23 hours later: still both.
    h.clock.advance(23 * 3600 * 1000);
    await h.emit("policy.activated");
    await worker.runOnce();
    check([second, first]);

    // Rotating again within the 24 hours drops the first secret at once.
    const third = (await h.owner.patch(`/orgs/${h.org}/webhooks/${e.id}`, { rotate_secret: true })).body
      .secret as string;
    await h.emit("policy.activated");
    await worker.runOnce();
    check([third, second]);

    // 24 hours after the last rotation: the current secret alone.
    h.clock.advance(24 * 3600 * 1000);
    await h.emit("policy.activated");
    await worker.runOnce();
    check([third]);
  });
});

describe("receiver answers", () => {
  it("never follows a redirect: a 3xx is a failed attempt", async () => {
    rx.answer = (r, res) => {
      if (r.path === "/redirect") {
        res.writeHead(302, { location: `${rx.url}/target` });
        res.end();
      } else ok(r, res);
    };
    const e = await h.createEndpoint(`${rx.url}/redirect`, ["action.denied"]);
    await h.emit("action.denied");
    await h.worker().runOnce();
    expect(rx.requests.map((r) => r.path)).toEqual(["/redirect"]);
    const [d] = await deliveries(e.id);
    expect(d.state).toBe("pending");
    expect(d.attempts[0]).toMatchObject({ status_code: 302, error: "REDIRECT_NOT_FOLLOWED" });
  });

  it("a slow answer times out as a failed attempt", async () => {
    rx.answer = (_r, res) => {
      setTimeout(() => {
        res.writeHead(200);
        res.end("late");
      }, 2500);
    };
    const e = await h.createEndpoint(`${rx.url}/slow`, ["action.denied"]);
    await h.emit("action.denied");
    await h.worker({ attemptTimeoutMs: 500 }).runOnce();
    const [d] = await deliveries(e.id);
    expect(d.state).toBe("pending");
    expect(d.attempts[0]).toMatchObject({ status_code: null, error: "TIMEOUT" });
    expect(d.attempts[0].duration_ms).toBeLessThan(2500);
  });

  it("a resolver that does not answer times out as a failed attempt, without connecting", async () => {
    h.resolver.answers["slow-dns.test"] = ["127.0.0.1"];
    const e = await h.createEndpoint(`https://slow-dns.test:${rx.port}/dns`, ["action.denied"]);
    await h.emit("action.denied");
    await h.worker({ attemptTimeoutMs: 300, resolve: () => new Promise(() => undefined) }).runOnce();
    expect(rx.requests).toHaveLength(0);
    expect((await deliveries(e.id))[0].attempts[0]).toMatchObject({ status_code: null, error: "TIMEOUT" });
  });

  it("a declared answer over 64 KiB fails even with 200; an undeclared one is read only to 64 KiB", async () => {
    rx.answer = (r, res) => {
      if (r.path === "/declared") {
        res.writeHead(200, { "content-length": String(64 * 1024 + 1) });
        res.end(Buffer.alloc(64 * 1024 + 1, 97));
      } else {
        // Chunked and endless: the worker must stop reading, not wait for the end.
        res.writeHead(200);
        const more = () => {
          if (res.destroyed) return;
          res.write(Buffer.alloc(16 * 1024, 98), () => setImmediate(more));
        };
        more();
      }
    };
    const declared = await h.createEndpoint(`${rx.url}/declared`, ["action.denied"]);
    const endless = await h.createEndpoint(`${rx.url}/endless`, ["action.denied"]);
    await h.emit("action.denied");
    await h.worker({ attemptTimeoutMs: 5000 }).runOnce();
    expect((await deliveries(declared.id))[0].attempts[0]).toMatchObject({
      status_code: 200,
      error: "RESPONSE_TOO_LARGE",
    });
    const [d] = await deliveries(endless.id);
    expect(d.state).toBe("delivered");
    expect(d.attempts[0]).toMatchObject({ status_code: 200, error: null });
  });

  it("a certificate from a CA the configuration does not trust fails the attempt", async () => {
    const stranger = await startReceiver(h.ca.untrusted);
    try {
      const e = await h.createEndpoint(`${stranger.url}/`, ["action.denied"]);
      await h.emit("action.denied");
      await h.worker().runOnce();
      expect(stranger.requests).toHaveLength(0);
      expect((await deliveries(e.id))[0].attempts[0].error).toMatch(/^TLS_ERROR/);
    } finally {
      await stranger.close();
    }
  });
});

describe("addresses at connection time", () => {
  it("reaches an IPv6 literal receiver ([::1], allowed by the loopback switch)", async () => {
    const v6 = await startReceiver(h.ca, ok, "::1");
    try {
      const e = await h.createEndpoint(`${v6.url}/six`, ["action.denied"]);
      await h.emit("action.denied");
      await h.worker().runOnce();
      expect(v6.requests.map((r) => [r.path, r.headers.host])).toEqual([["/six", `[::1]:${v6.port}`]]);
      expect((await deliveries(e.id))[0].state).toBe("delivered");
    } finally {
      await v6.close();
    }
  });

  it("a name that later resolves to a private address is refused at delivery, without connecting", async () => {
    h.resolver.answers["receiver.test"] = ["127.0.0.1"];
    const e = await h.createEndpoint(`https://receiver.test:${rx.port}/named`, ["action.denied"]);
    await h.emit("action.denied");
    await h.worker().runOnce();
    expect(rx.requests.map((r) => [r.path, r.headers.host])).toEqual([
      ["/named", `receiver.test:${rx.port}`],
    ]);
    expect((await deliveries(e.id))[0].state).toBe("delivered");

    h.resolver.answers["receiver.test"] = ["127.0.0.1", "10.0.0.7"];
    await h.emit("action.denied");
    await h.worker().runOnce();
    expect(rx.requests).toHaveLength(1);
    const [d] = await deliveries(e.id);
    expect(d.state).toBe("pending");
    expect(d.attempts[0]).toMatchObject({ status_code: null, error: "URL_NOT_ALLOWED: private_address" });
  });
});

describe("concurrency", () => {
  it("keeps at most 1 delivery in flight per endpoint and 4 per organization, across workers", async () => {
    const org = await h.newOrganization();
    const otherOrg = await h.newOrganization();
    const perPath = new Map<string, number>();
    let maxPerPath = 0;
    const perOrg = new Map<string, number>();
    const maxPerOrg = new Map<string, number>();
    const orgOf = new Map<string, string>();
    rx.answer = (r, res) => {
      const o = orgOf.get(r.path)!;
      perPath.set(r.path, (perPath.get(r.path) ?? 0) + 1);
      perOrg.set(o, (perOrg.get(o) ?? 0) + 1);
      maxPerPath = Math.max(maxPerPath, perPath.get(r.path)!);
      maxPerOrg.set(o, Math.max(maxPerOrg.get(o) ?? 0, perOrg.get(o)!));
      setTimeout(() => {
        perPath.set(r.path, perPath.get(r.path)! - 1);
        perOrg.set(o, perOrg.get(o)! - 1);
        ok(r, res);
      }, 150);
    };
    for (const [o, n] of [
      [org, 6],
      [otherOrg, 2],
    ] as const) {
      for (let i = 0; i < n; i++) {
        const path = `/c-${o.slice(0, 8)}-${i}`;
        orgOf.set(path, o);
        await h.createEndpoint(`${rx.url}${path}`, ["action.allowed"], h.owner, o);
      }
      for (let j = 0; j < 3; j++) await h.emit("action.allowed", { j }, o);
    }
    await Promise.all([h.worker().runOnce(), h.worker().runOnce(), h.worker().runOnce()]);
    expect(rx.requests).toHaveLength(6 * 3 + 2 * 3);
    expect(maxPerPath).toBe(1);
    expect(maxPerOrg.get(org)).toBe(4);
    expect(maxPerOrg.get(otherOrg)).toBe(2);
    const { rows } = await h.db.pool.query<{ n: string }>(
      "select count(*) as n from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.organization_id = any($1)",
      [[org, otherOrg]],
    );
    expect(Number(rows[0]!.n)).toBe(24);
  });
});
