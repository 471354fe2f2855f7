/**
 * `make openapi`: writes the Cloud API's OpenAPI document to
 * docs/openapi/cloud-api.json (the file a test compares with the served one).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { cloudApiDocumentText } from "./generate.js";

const target = process.argv[2] ?? "docs/openapi/cloud-api.json";
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, await cloudApiDocumentText());
console.log(`wrote ${target}`);
