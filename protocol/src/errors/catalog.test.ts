import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { cloudApiCodes, gatewayCodes, gatewayStatuses } from "./index.js";

// The catalog is checked against the spec text itself, so a code the spec names
// with a status cannot be forgotten or mistyped here.
// docs/spec.md is the spec as committed with the code it describes.
const spec = readFileSync(new URL("../../../docs/spec.md", import.meta.url), "utf8");

describe("error catalog", () => {
  test("the Gateway has exactly the eleven statuses of SPEC 7.3", () => {
    expect(gatewayStatuses).toHaveLength(11);
    expect(new Set(Object.values(gatewayCodes))).toEqual(new Set(gatewayStatuses));
  });

  test("every Gateway status/code row of SPEC 7.3 is in the catalog", () => {
    const rows = spec
      .split("\n")
      .filter((l) =>
        /^\| (denied|approval_pending|rejected|expired|cancelled|replay|upstream_error|plan_limit|invalid_request|unauthorized|unavailable) \|/.test(
          l,
        ),
      );
    expect(rows.length).toBeGreaterThan(15);
    for (const row of rows) {
      const [, status, codes] = row.split("|").map((c) => c.trim());
      for (const code of codes!.match(/\b[A-Z][A-Z_]{3,}\b/g) ?? []) {
        expect(gatewayCodes, `${code} in SPEC 7.3`).toHaveProperty(code, status);
      }
    }
  });

  test("every 'CODE NNN' the spec's 7.2 names has that HTTP status here", () => {
    const section = spec.slice(spec.indexOf("### 7.2"), spec.indexOf("### 7.3"));
    const pairs = [...section.matchAll(/\b([A-Z][A-Z_]{2,}) (\d{3})\b/g)];
    expect(pairs.length).toBeGreaterThan(50);
    for (const [, code, status] of pairs) {
      expect(cloudApiCodes, `${code} in SPEC 7.2`).toHaveProperty(code!, Number(status));
    }
    for (const row of section.split("\n").filter((l) => /^\| [A-Z_]+ \| \d{3} \|/.test(l))) {
      const [, code, status] = row.split("|").map((c) => c.trim());
      expect(cloudApiCodes).toHaveProperty(code!, Number(status));
    }
  });
});
