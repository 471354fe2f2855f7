import type { FastifyInstance } from "fastify";
import { gatewayOpenApiText } from "./document.js";

/**
 * GET /openapi.json: the Gateway's OpenAPI document, without a key (it describes the API, it
 * holds nothing of anyone's) and outside the key's rate limit, which only /v1/authorize and /mcp
 * take. Built once per replica; the same text as docs/openapi/gateway.json.
 */
export async function openApiRoute(app: FastifyInstance) {
  const text = gatewayOpenApiText();
  app.get("/openapi.json", async (_request, reply) =>
    reply
      .header("content-type", "application/json; charset=utf-8")
      .header("cache-control", "no-cache")
      .send(text),
  );
}
