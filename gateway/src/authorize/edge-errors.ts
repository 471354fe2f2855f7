import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { isRequestTextError } from "@countersign/core/server";
import { isDatabaseUnavailable } from "@countersign/core/store";
import type { GatewayContext } from "../context.js";
import { edgeRefusal } from "../http/edge.js";
import { checkGatewayKey } from "../http/key-check.js";
import { refuse, refuseInternal, refuseKeyCheck } from "./answers.js";

/**
 * Every error of POST /v1/authorize answered in its own shape (`allowed`
 * false, a status and a code of the catalog), fastify's own included. A body
 * breaking the text rule is refused after the key check, as a body failing
 * the request's schema is: INVALID_ARGUMENTS inside `arguments`, else
 * INVALID_REQUEST; nothing is recorded either way.
 */
export function authorizeErrors(ctx: GatewayContext) {
  return async (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const edge = edgeRefusal(err, request, reply);
    if (edge) return edge;
    if (isRequestTextError(err)) {
      const access = await checkGatewayKey(ctx, request, 1);
      if (!access.ok) return refuseKeyCheck(reply, access);
      return refuse(
        reply,
        400,
        err.path[0] === "arguments" ? "INVALID_ARGUMENTS" : "INVALID_REQUEST",
        err.detail,
      );
    }
    if (isDatabaseUnavailable(err))
      return refuse(reply, 503, "DATABASE_UNAVAILABLE", "cannot decide now; retry the same call");
    request.log.error({ err }, "authorize failed");
    return refuseInternal(request, reply);
  };
}
