import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import swagger from "@fastify/swagger";
import { securitySchemes } from "./security.js";
import { transform } from "./transform.js";
import { transformObject } from "./document-object.js";

/** The Cloud API's version as the document states it (SPEC 9: everything under /api/v1). */
export const CLOUD_API_VERSION = "1";

const description = [
  "The Countersign Cloud API (SPEC 4). Generated from the routes' zod schemas (api/src/openapi); do not edit the committed copy, run `make openapi`.",
  "",
  "Every error answer has the body `{error: {code, message, details?}}`; each error answer lists the codes of the catalog with its status.",
  "Who may call a route is in `security` (any one requirement suffices) and in `x-countersign-access` (the route table's row: role group, roles, management-key scope).",
].join("\n");

/**
 * @fastify/swagger collecting every route registered after it (it must be
 * registered before the routes, at the root, so its onRoute hook sees them)
 * into an OpenAPI 3.1 document built by `transform`.
 */
async function openApiCollector(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: "Countersign Cloud API", version: CLOUD_API_VERSION, description },
      components: { securitySchemes: { ...securitySchemes } },
    },
    transform,
    transformObject,
  });
}

export const openApiDocument = fp(openApiCollector, { name: "openapi-document" });
