import { createHmac } from "node:crypto";

/**
 * `Service-Signature` of SPEC 6.3: `t=<unix seconds>,v1=<hex>[,v1=<hex>]`,
 * each v1 the lowercase hex HMAC-SHA256 of `<t>.<raw body>` keyed with the
 * whole secret text, `whsec_` prefix included. `secrets` is the current one
 * first, then the previous one while it still signs.
 */
export function signatureHeader(
  secrets: readonly string[],
  unixSeconds: number,
  rawBody: string | Buffer,
): string {
  const t = String(Math.floor(unixSeconds));
  const signed = Buffer.concat([
    Buffer.from(`${t}.`, "utf8"),
    Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(rawBody, "utf8"),
  ]);
  const v1 = secrets.map((s) => `v1=${createHmac("sha256", s).update(signed).digest("hex")}`);
  return [`t=${t}`, ...v1].join(",");
}
