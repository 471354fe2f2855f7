/**
 * The committed copies of the Gateway's published wire are what the generator writes now:
 * docs/openapi/gateway.json and the Python client's JSON Schemas. When this fails, run
 * `make openapi` (gateway/src/openapi/write-main.ts) and commit the result.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { gatewayOpenApiText } from "./document.js";
import { gatewayJsonSchemaFiles, JSON_SCHEMAS_DIR } from "./json-schemas.js";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const committed = (path: string) => readFileSync(join(repo, path), "utf8");

describe("the committed Gateway wire documents", () => {
  it("docs/openapi/gateway.json is the generated document", () => {
    expect(committed("docs/openapi/gateway.json")).toBe(gatewayOpenApiText());
  });

  it(`${JSON_SCHEMAS_DIR}/ holds exactly the generated JSON Schemas`, () => {
    const files = gatewayJsonSchemaFiles();
    expect(Object.keys(files).length).toBeGreaterThan(0);
    for (const [name, text] of Object.entries(files))
      expect(committed(join(JSON_SCHEMAS_DIR, name)), name).toBe(text);
  });
});
