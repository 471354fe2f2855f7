/**
 * POST /api/v1/billing/stripe/events: where Stripe pushes events (SPEC 4.4: "the billing provider
 * also calls a Cloud API route"; not for scripts). The signature is checked by Stripe's SDK over
 * the exact bytes received, so this route alone reads its body raw (its own content-type parser,
 * in this plugin's scope). A forged, altered or stale push (timestamp beyond the tolerance) is
 * refused 400 and changes nothing; an event id applied before answers 200 `duplicate` and changes
 * nothing (events.ts).
 */
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { billingEventAnswerSchema, errorBodySchema } from "@countersign/protocol/wire";
import type { ApiContext } from "../context.js";
import { typed } from "../http/shared.js";
import { applyStripeEvent } from "./events.js";
import type { BillingProvider } from "./provider.js";

export const EVENTS_PATH = "/billing/stripe/events";

export function eventsRoute(provider: BillingProvider | undefined) {
  return async function billingEventsRoute(app: FastifyInstance, ctx: ApiContext) {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) =>
      done(null, body),
    );
    typed(app).post(
      EVENTS_PATH,
      {
        schema: {
          querystring: z.strictObject({}),
          response: { 200: billingEventAnswerSchema, 400: errorBodySchema, 503: errorBodySchema },
        },
      },
      async (request) => {
        if (!provider || !ctx.billing) throw unconfigured();
        const raw = Buffer.isBuffer(request.body) ? request.body : undefined;
        const signature = request.headers["stripe-signature"];
        const event = raw && provider.verifyEvent(raw, typeof signature === "string" ? signature : undefined);
        if (!event)
          throw new ServiceError(
            "INVALID_REQUEST",
            "the event's Stripe-Signature does not verify (wrong secret, altered body or too old)",
          );
        const applied = await applyStripeEvent(ctx.pool, ctx.billing, event);
        return { received: true as const, duplicate: !applied };
      },
    );
  };
}

/** Plans cannot be bought in this installation (SPEC 7.2: 503 without Retry-After). */
export const unconfigured = () =>
  new ServiceError("SERVICE_UNAVAILABLE", "plans cannot be bought in this installation");
