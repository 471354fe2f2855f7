import { bench, describe } from "vitest";
import { parseStrictJson } from "./strict-json.js";

/**
 * The strict parser sits on every request with a body, so its cost beside
 * plain JSON.parse (`make bench`; vitest prints ops/s as hz; nothing is
 * asserted): a typical /v1/authorize body, and a body near the 224 KiB
 * argument limit with many members, escapes and non-ASCII text.
 */
const small = Buffer.from(
  JSON.stringify({
    tool: "payments_refund",
    arguments: { order: "o-1234", amount: 40, currency: "EUR", note: 'customer asked "twice"' },
    idempotency_key: "op-77",
  }),
);
const items = Array.from({ length: 1500 }, (_, i) => ({
  id: `item-${i}`,
  label: `Ünïcode label ${i} — “quoted”`,
  qty: i,
  tags: ["a", "b\\c", "d\ne"],
  nested: { ok: true, v: null },
}));
const large = Buffer.from(JSON.stringify({ tool: "bulk_update", arguments: { items } }));

describe(`strict JSON vs JSON.parse: small body (${small.length} bytes)`, () => {
  bench("JSON.parse(utf8 text)", () => {
    JSON.parse(small.toString("utf8"));
  });
  bench("parseStrictJson", () => {
    parseStrictJson(small);
  });
});

describe(`strict JSON vs JSON.parse: large body (${Math.round(large.length / 1024)} KiB)`, () => {
  bench("JSON.parse(utf8 text)", () => {
    JSON.parse(large.toString("utf8"));
  });
  bench("parseStrictJson", () => {
    parseStrictJson(large);
  });
});
