import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { ServiceError } from "@countersign/protocol/errors";
import { isRequestTextError, type RequestTextError } from "@countersign/core/server";
import { isDatabaseUnavailable } from "@countersign/core/store";
import { issuesOf } from "./issues.js";

/**
 * Every failure of a Cloud API request becomes the error body of SPEC 7.1
 * here, and only here: routes throw `ServiceError`, fastify's own errors are
 * translated to the spec's codes, anything else is a 500 without details.
 */
export function toServiceError(err: FastifyError, request: FastifyRequest): ServiceError {
  if (err instanceof ServiceError) return err;
  if (isRequestTextError(err)) return textRefusal(err, request);
  if (err.validation) {
    // A path id that does not even parse names nothing that exists (SPEC 4.3).
    if (err.validationContext === "params") return new ServiceError("NOT_FOUND", "not found");
    const where = err.validationContext === "querystring" ? "query" : "body";
    return new ServiceError("VALIDATION_FAILED", `the ${where} is invalid`, {
      issues: issuesOf(err.validation),
    });
  }
  switch (err.code) {
    // A method that carries a body (QUERY, which fastify routes) sent without a Content-Type (found by schemathesis: it was a 500).
    case "FST_ERR_ROUTE_MISSING_CONTENT_TYPE":
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new ServiceError(
        "UNSUPPORTED_MEDIA_TYPE",
        "bodies must be JSON (Content-Type: application/json)",
      );
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new ServiceError("PAYLOAD_TOO_LARGE", "the body is larger than 1 MiB");
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return new ServiceError("INVALID_JSON", "the body is not valid JSON");
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return new ServiceError("VALIDATION_FAILED", "Content-Length does not match the body");
  }
  if (err instanceof SyntaxError && err.statusCode === 400)
    return new ServiceError("INVALID_JSON", "the body is not valid JSON");
  if (isDatabaseUnavailable(err)) {
    return new ServiceError("SERVICE_UNAVAILABLE", "the database is unavailable; retry later", undefined, {
      "retry-after": "5",
    });
  }
  request.log.error({ err }, "unhandled error");
  return new ServiceError("INTERNAL_ERROR", `internal error (request id ${request.id})`);
}

/**
 * The text rule's refusals: a malformed path names nothing (404); a body that is not JSON is
 * INVALID_JSON; text breaking the rule inside the arguments of a call the Cloud API decides (the
 * dry run, a simulated call) is INVALID_ARGUMENTS, as the Gateway answers for the same call;
 * anywhere else it is VALIDATION_FAILED.
 */
function textRefusal(err: RequestTextError, request: FastifyRequest): ServiceError {
  if (err.where === "path") return new ServiceError("NOT_FOUND", "not found");
  if (err.kind === "json") return new ServiceError("INVALID_JSON", err.message);
  if (err.where === "body" && inCallArguments(request.routeOptions.url, err.path)) {
    return new ServiceError("INVALID_ARGUMENTS", `the arguments are invalid: ${err.detail}`);
  }
  return new ServiceError("VALIDATION_FAILED", `the ${err.where} is invalid`, {
    issues: [{ path: err.pathText, code: "invalid_text", message: err.message }],
  });
}

/** Whether a body path lies in the arguments of a call: the dry run's `arguments`, a simulation's `calls[i].arguments`. */
function inCallArguments(route: string | undefined, path: RequestTextError["path"]): boolean {
  if (route?.endsWith("/agents/:agent_id/dry-run")) return path[0] === "arguments";
  if (
    route?.endsWith("/policies/:policy_id/simulate") ||
    route?.endsWith("/policies/:policy_id/simulations")
  ) {
    return path[0] === "calls" && typeof path[1] === "number" && path[2] === "arguments";
  }
  return false;
}

/** A URL the router could not read (bad percent-encoding, an over-long path id): it names nothing. */
export function refuseMalformedUrl(_request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendServiceError(
    reply.header("cache-control", "no-store"),
    new ServiceError("NOT_FOUND", "not found"),
  );
}

export function sendServiceError(reply: FastifyReply, e: ServiceError): FastifyReply {
  return reply.code(e.status).headers(e.headers).send(e.toBody());
}

export async function cloudApiErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  return sendServiceError(reply, toServiceError(err, request));
}
