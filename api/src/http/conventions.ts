import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { validatorCompiler, serializerCompiler } from "fastify-type-provider-zod";
import { ServiceError } from "@countersign/protocol/errors";
import { cloudApiErrorHandler, sendServiceError } from "./error-handler.js";
import type { DashboardFiles } from "../dashboard/serve.js";

/**
 * The Cloud API conventions of SPEC 4.3, once, for every route:
 * - JSON bodies only (415), at most 1 MiB (413, via the server's bodyLimit),
 *   under the text rule of core's server (a violation is 400 VALIDATION_FAILED,
 *   in the path 404);
 * - zod schemas validate bodies, queries and path ids (routes declare strict
 *   objects, so unknown members give 400 VALIDATION_FAILED; a malformed path id 404);
 * - `Cache-Control: no-store` unless a route set its own;
 * - no CORS headers, ever (we register no CORS support and answer preflights 404);
 * - the error body `{error: {code, message, details?}}`;
 * - a GET no route answers, outside /api/v1, is the dashboard's (its files or index.html).
 */
async function conventions(app: FastifyInstance, opts: { dashboard?: DashboardFiles }) {
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  app.addHook("onSend", async (_request, reply, payload) => {
    if (!reply.hasHeader("cache-control")) reply.header("cache-control", "no-store");
    return payload;
  });

  app.setErrorHandler(cloudApiErrorHandler);
  app.setNotFoundHandler(async (request, reply) => {
    if (opts.dashboard && (await opts.dashboard.serve(request, reply))) return reply;
    return sendServiceError(
      reply,
      new ServiceError("NOT_FOUND", `no route ${request.method} ${request.url.split("?")[0]}`),
    );
  });
}

export const cloudApiConventions = fp(conventions, { name: "cloud-api-conventions" });
