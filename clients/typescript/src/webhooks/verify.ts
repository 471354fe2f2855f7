import { createHmac, timingSafeEqual } from "node:crypto";

/** How far a delivery's `t` may be from the receiver's clock (SPEC 6.3). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

export type WebhookVerification =
  | { valid: true; /** the signed `t`, unix seconds */ timestamp: number }
  | {
      valid: false;
      reason:
        | "RAW_BODY_REQUIRED" // the body was not given as the raw bytes or text received
        | "MALFORMED_SIGNATURE" // no header, not exactly one t, no v1, or a v1 that is not 64 hex characters
        | "TIMESTAMP_OUT_OF_TOLERANCE" // t differs from now by more than 5 minutes
        | "NO_MATCHING_SIGNATURE"; // no v1 matches any of the secrets
    };

const V1 = /^[0-9a-fA-F]{64}$/;

function parseHeader(header: string): { t: number; tText: string; v1: Buffer[] } | undefined {
  const t: string[] = [];
  const v1: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq <= 0) return undefined;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "t") t.push(value);
    else if (key === "v1") v1.push(value);
    // Other schemes are not ours to judge: a later version may add them beside v1.
  }
  if (t.length !== 1 || !/^\d{1,15}$/.test(t[0]!) || v1.length === 0 || !v1.every((s) => V1.test(s)))
    return undefined;
  return { t: Number(t[0]), tText: t[0]!, v1: v1.map((s) => Buffer.from(s, "hex")) };
}

/**
 * What SPEC 6.3 asks a webhook receiver to do with one delivery:
 *
 * - `rawBody`: the exact bytes received (a Buffer/Uint8Array or the text they
 *   decode to), read before any JSON parsing. A parsed object is refused.
 * - `header`: the `Service-Signature` header: exactly one `t` and one or more
 *   `v1`, each 64 hex characters.
 * - `secrets`: your endpoint's secret, `whsec_` prefix included; pass the
 *   previous one too while you switch after a rotation.
 * - `now`: your clock (a Date or unix milliseconds); `t` may differ from it
 *   by at most 5 minutes.
 *
 * Each v1 is compared in constant time with HMAC-SHA256(secret, `t.` + body);
 * one match accepts. Then deduplicate on `Service-Event-Id` (deliveries come
 * at least once) and answer 2xx quickly.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secrets: string | readonly string[],
  now: Date | number = new Date(),
): WebhookVerification {
  if (typeof rawBody !== "string" && !(rawBody instanceof Uint8Array))
    return { valid: false, reason: "RAW_BODY_REQUIRED" };
  const parsed = typeof header === "string" ? parseHeader(header) : undefined;
  if (!parsed) return { valid: false, reason: "MALFORMED_SIGNATURE" };
  const nowSeconds = (typeof now === "number" ? now : now.getTime()) / 1000;
  if (Math.abs(nowSeconds - parsed.t) > WEBHOOK_TOLERANCE_SECONDS)
    return { valid: false, reason: "TIMESTAMP_OUT_OF_TOLERANCE" };
  const body =
    typeof rawBody === "string"
      ? Buffer.from(rawBody, "utf8")
      : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  // The message is the text of t exactly as sent, a dot, then the raw body.
  const signed = Buffer.concat([Buffer.from(`${parsed.tText}.`, "utf8"), body]);
  for (const secret of typeof secrets === "string" ? [secrets] : secrets) {
    const expected = createHmac("sha256", secret).update(signed).digest();
    // Every v1 is compared, whatever matched before, so the time taken says nothing about which.
    let match = false;
    for (const v of parsed.v1) match = timingSafeEqual(expected, v) || match;
    if (match) return { valid: true, timestamp: parsed.t };
  }
  return { valid: false, reason: "NO_MATCHING_SIGNATURE" };
}
