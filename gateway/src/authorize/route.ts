import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { inSpan } from "@countersign/core/telemetry";
import { isDatabaseUnavailable } from "@countersign/core/store";
import { checkArguments, StaleAdmission } from "@countersign/core/decision";
import type { GatewayContext } from "../context.js";
import { checkGatewayKey } from "../http/key-check.js";
import { otherMethods } from "../http/edge.js";
import { refuse, refuseKeyCheck } from "./answers.js";
import { authorizeErrors } from "./edge-errors.js";
import { authorizeRequestSchema, MAX_WAIT_SECONDS } from "@countersign/protocol/wire";
import { describeInvalid } from "./request.js";

/**
 * POST /v1/authorize (SPEC 4.1): HTTP-level checks in the order that keeps
 * bad requests cheap and unrecorded (key, rate, body, arguments), then the
 * decision pipeline of core, then the answer.
 */
export async function authorizeRoutes(app: FastifyInstance, ctx: GatewayContext) {
  app.setErrorHandler(authorizeErrors(ctx));
  app.route({
    method: otherMethods(app),
    url: "/v1/authorize",
    // Answered before the body is read: the method is wrong whatever the body says.
    onRequest: async (_request, reply) =>
      refuse(reply.header("allow", "POST"), 405, "INVALID_REQUEST", "use POST"),
    handler: async (_request, reply) => reply,
  });

  app.post("/v1/authorize", (request, reply) =>
    inSpan("POST /v1/authorize", () => handle(request, reply), {
      "http.route": "/v1/authorize",
      "http.request.method": "POST",
    }),
  );

  async function handle(
    request: FastifyRequest,
    reply: FastifyReply,
    rerun?: { raced: boolean },
  ): Promise<FastifyReply> {
    const started = process.hrtime.bigint();
    // The body is parsed first only so that the key check's round trip can read the decision
    // context of its tool too; its refusals still come after the key's and the rate limit's.
    const parsed =
      request.body === undefined || request.body === null
        ? undefined
        : authorizeRequestSchema.safeParse(request.body);
    const intent = parsed?.success
      ? { tool: parsed.data.tool, idempotencyKey: parsed.data.idempotency_key ?? null }
      : null;
    const access = await checkGatewayKey(ctx, request, 1, intent, rerun !== undefined);
    if (!access.ok) return refuseKeyCheck(reply, access);
    const key = access.key;

    if (!parsed) return refuse(reply, 400, "INVALID_REQUEST", "the body must be a JSON object");
    if (!parsed.success) return refuse(reply, 400, "INVALID_REQUEST", describeInvalid(parsed.error));
    const body = parsed.data;
    const args = body.arguments ?? {};
    const checked = checkArguments(args);
    if (!checked.ok) return refuse(reply, 400, "INVALID_ARGUMENTS", checked.message ?? "invalid arguments");

    const slot = await inSpan("gateway.queue", () => ctx.queue.acquire(key.organizationId));
    ctx.metrics.queueDepth.set(ctx.queue.depth);
    if (!slot) {
      return refuse(
        reply,
        503,
        "GATEWAY_BUSY",
        "this organization has more calls in progress than the Gateway takes at once; retry the same call",
      );
    }
    // Aborted when the caller goes away, so a held approval wait ends with it.
    const gone = new AbortController();
    const onClose = () => {
      if (!reply.raw.writableEnded) gone.abort();
    };
    reply.raw.once("close", onClose);
    let stale: StaleAdmission;
    try {
      const answer = await ctx.decisions.authorize({
        key,
        tool: body.tool,
        arguments: args,
        canonicalArguments: checked.canonical!,
        idempotencyKey: body.idempotency_key ?? null,
        waitSeconds: Math.min(body.wait_seconds ?? 0, MAX_WAIT_SECONDS),
        slot,
        signal: gone.signal,
        context: access.context,
        raced: rerun?.raced,
      });
      ctx.metrics.decisions.inc({
        mode: "caller",
        status: answer.body.status as string,
        code: (answer.body.code as string) ?? "",
      });
      // The latency histogram leaves out calls that may have waited for a person.
      if (!body.wait_seconds)
        ctx.metrics.decisionSeconds.observe(
          { mode: "caller" },
          Number(process.hrtime.bigint() - started) / 1e9,
        );
      if (answer.http === 503) reply.header("retry-after", "5");
      return reply.code(answer.http).send(answer.body);
    } catch (err) {
      // Decided from a warm admission whose write did not hold: nothing was recorded or sent.
      if (err instanceof StaleAdmission && !rerun) stale = err;
      else if (isDatabaseUnavailable(err))
        return refuse(reply, 503, "DATABASE_UNAVAILABLE", "cannot decide now; retry the same call");
      else throw err;
    } finally {
      reply.raw.off("close", onClose);
      slot.release();
      ctx.metrics.queueDepth.set(ctx.queue.depth);
    }
    ctx.metrics.admissions.inc({ admission: "stale" });
    return handle(request, reply, { raced: stale.raced });
  }
}
