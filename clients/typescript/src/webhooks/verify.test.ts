/**
 * verifyWebhook against deliveries captured from the real delivery worker
 * (real HTTPS receiver, real database), including a rotation, and against
 * every way a delivery can be wrong.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startReceiver,
  type ReceivedRequest,
  type Receiver,
} from "../../../../test/fixtures/https-receiver.js";
import { startWebhookHarness, type WebhookHarness } from "../../../../test/webhooks/harness.js";
import { verifyWebhook } from "../index.js";

let h: WebhookHarness;
let rx: Receiver;
let secret: string;
let previous: string;
let plain: ReceivedRequest;
let rotated: ReceivedRequest;

beforeAll(async () => {
  h = await startWebhookHarness();
  rx = await startReceiver(h.ca);
  const e = await h.createEndpoint(`${rx.url}/hook`, ["receipt.created"]);
  previous = e.secret;
  await h.emit("receipt.created", { receipt_id: "r1", outcome: "final", note: "é ✓" });
  await h.worker().runOnce();
  plain = rx.requests[0]!;
  secret = (await h.owner.patch(`/orgs/${h.org}/webhooks/${e.id}`, { rotate_secret: true })).body.secret;
  await h.emit("receipt.created", { receipt_id: "r2", outcome: "final" });
  await h.worker().runOnce();
  rotated = rx.requests[1]!;
});
afterAll(async () => {
  await rx.close();
  await h.close();
});

const sig = (r: ReceivedRequest) => r.headers["service-signature"] as string;

describe("verifyWebhook", () => {
  it("accepts captured deliveries as raw bytes or their text, within 5 minutes", () => {
    const now = h.clock.now();
    expect(verifyWebhook(plain.raw, sig(plain), previous, now)).toMatchObject({ valid: true });
    expect(verifyWebhook(plain.raw.toString("utf8"), sig(plain), [previous], now)).toMatchObject({
      valid: true,
    });
    const t = Number(/t=(\d+)/.exec(sig(plain))![1]) * 1000;
    expect(verifyWebhook(new Uint8Array(plain.raw), sig(plain), previous, t + 299_000)).toMatchObject({
      valid: true,
    });
  });

  it("after a rotation accepts either secret: the delivery carries two v1", () => {
    expect(sig(rotated).match(/v1=/g)).toHaveLength(2);
    expect(verifyWebhook(rotated.raw, sig(rotated), secret, h.clock.now())).toMatchObject({ valid: true });
    expect(verifyWebhook(rotated.raw, sig(rotated), previous, h.clock.now())).toMatchObject({ valid: true });
    // The first delivery was signed before the rotation: the new secret does not match it.
    expect(verifyWebhook(plain.raw, sig(plain), secret, h.clock.now())).toEqual({
      valid: false,
      reason: "NO_MATCHING_SIGNATURE",
    });
  });

  it("refuses a changed body, a re-serialized body, another secret, and a parsed object", () => {
    const now = h.clock.now();
    const changed = Buffer.from(plain.raw.toString("utf8").replace("r1", "r9"));
    expect(verifyWebhook(changed, sig(plain), previous, now)).toEqual({
      valid: false,
      reason: "NO_MATCHING_SIGNATURE",
    });
    const reserialized = JSON.stringify(JSON.parse(plain.raw.toString("utf8")), null, 1);
    expect(verifyWebhook(reserialized, sig(plain), previous, now)).toEqual({
      valid: false,
      reason: "NO_MATCHING_SIGNATURE",
    });
    expect(verifyWebhook(plain.raw, sig(plain), "whsec_not-it", now)).toEqual({
      valid: false,
      reason: "NO_MATCHING_SIGNATURE",
    });
    // Without the prefix the key is a different one.
    expect(verifyWebhook(plain.raw, sig(plain), previous.slice("whsec_".length), now)).toEqual({
      valid: false,
      reason: "NO_MATCHING_SIGNATURE",
    });
    expect(verifyWebhook(JSON.parse(plain.raw.toString("utf8")), sig(plain), previous, now)).toEqual({
      valid: false,
      reason: "RAW_BODY_REQUIRED",
    });
  });

  it("refuses a t more than 5 minutes from now, either way", () => {
    const t = Number(/t=(\d+)/.exec(sig(plain))![1]) * 1000;
    expect(verifyWebhook(plain.raw, sig(plain), previous, t + 301_000)).toEqual({
      valid: false,
      reason: "TIMESTAMP_OUT_OF_TOLERANCE",
    });
    expect(verifyWebhook(plain.raw, sig(plain), previous, t - 301_000)).toEqual({
      valid: false,
      reason: "TIMESTAMP_OUT_OF_TOLERANCE",
    });
    expect(verifyWebhook(plain.raw, sig(plain), previous, new Date(t + 300_000))).toMatchObject({
      valid: true,
    });
  });

  it.each([
    ["no header", undefined],
    ["empty", ""],
    ["no t", "v1=" + "a".repeat(64)],
    ["two t", `t=1,t=2,v1=${"a".repeat(64)}`],
    ["no v1", "t=1"],
    ["short v1", "t=1,v1=abc"],
    ["non-hex v1", `t=1,v1=${"g".repeat(64)}`],
    ["t not a number", `t=soon,v1=${"a".repeat(64)}`],
    ["part without =", `t=1,v1=${"a".repeat(64)},junk`],
  ])("refuses a malformed header: %s", (_name, header) => {
    expect(verifyWebhook(plain.raw, header, previous, h.clock.now())).toEqual({
      valid: false,
      reason: "MALFORMED_SIGNATURE",
    });
  });

  it("keeps the t text as sent and ignores schemes it does not know", () => {
    const real = sig(plain);
    const t = /t=(\d+)/.exec(real)![1]!;
    const v1s = real.split(",").filter((p) => p.startsWith("v1="));
    expect(
      verifyWebhook(plain.raw, [`t=${t}`, `v0=${"f".repeat(10)}`, ...v1s].join(","), previous, h.clock.now()),
    ).toMatchObject({ valid: true });
    expect(verifyWebhook(plain.raw, [`t=0${t}`, ...v1s].join(","), previous, h.clock.now())).toEqual({
      valid: false,
      reason: "NO_MATCHING_SIGNATURE",
    });
  });
});
