import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { typed } from "../http/shared.js";

/** The served document: an OpenAPI 3.1 object (its shape is OpenAPI's, not ours). */
const openApiAnswer = z.looseObject({
  openapi: z.literal("3.1.0"),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});

/**
 * `GET /api/v1/openapi.json`: the Cloud API's OpenAPI document, without
 * authentication (route table: anyone), so anyone may generate a client or
 * fuzz the API from it. Built once, on the first request, from the routes the
 * server registered (openApiDocument).
 */
export async function openApiRoute(app: FastifyInstance) {
  let document: z.infer<typeof openApiAnswer> | undefined;
  typed(app).get(
    "/openapi.json",
    { schema: { querystring: z.strictObject({}), response: { 200: openApiAnswer } } },
    async () => {
      document ??= cloudApiDocument(app);
      return document;
    },
  );
}

/** The document as committed (docs/openapi/cloud-api.json). */
export function cloudApiDocument(app: FastifyInstance): z.infer<typeof openApiAnswer> {
  return openApiAnswer.parse(app.swagger());
}
