/**
 * `make openapi`: writes the Gateway's OpenAPI document (default docs/openapi/gateway.json) and the
 * JSON Schemas of its wire the Python client's tests read (clients/python/tests/schemas/), both
 * generated from protocol/src/wire/gateway; tests fail while either committed copy is stale.
 *
 *   node --conditions=countersign-source --import tsx gateway/src/openapi/write-main.ts [docs/openapi/gateway.json]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { gatewayOpenApiText } from "./document.js";
import { gatewayJsonSchemaFiles, JSON_SCHEMAS_DIR } from "./json-schemas.js";

const target = process.argv[2] ?? "docs/openapi/gateway.json";
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, gatewayOpenApiText());
console.log(`wrote ${target}`);
mkdirSync(JSON_SCHEMAS_DIR, { recursive: true });
for (const [name, text] of Object.entries(gatewayJsonSchemaFiles())) {
  writeFileSync(join(JSON_SCHEMAS_DIR, name), text);
  console.log(`wrote ${join(JSON_SCHEMAS_DIR, name)}`);
}
