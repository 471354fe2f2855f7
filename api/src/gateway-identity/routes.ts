import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import type { IdentityDocument } from "@countersign/protocol/evidence";
import { gatewayIdentityAnswerSchema } from "@countersign/protocol/wire";
import type { ApiContext } from "../context.js";
import { typed } from "../http/shared.js";
import { currentGatewayIdentity } from "./store.js";

/** GET /gateway/identity: the Gateway's public identity document; 404 until one is registered. */
export async function gatewayIdentityRoute(app: FastifyInstance, ctx: ApiContext) {
  typed(app).get(
    "/gateway/identity",
    { schema: { querystring: z.strictObject({}), response: { 200: gatewayIdentityAnswerSchema } } },
    async () => {
      const g = await currentGatewayIdentity(ctx.pool);
      if (!g) throw new ServiceError("NOT_FOUND", "no Gateway identity is registered");
      return {
        identity: {
          kid: g.kid,
          public_key: g.public_key,
          // Stored only after the Gateway's registration verified it.
          document: g.document as IdentityDocument,
          created_at: g.created_at.toISOString(),
        },
      };
    },
  );
}
