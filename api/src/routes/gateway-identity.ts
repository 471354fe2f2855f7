import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import type { ApiContext } from "../context.js";
import { typed } from "../http/shared.js";

/** GET /gateway/identity: the Gateway's public identity document; 404 until one is registered. */
export async function gatewayIdentityRoute(app: FastifyInstance, ctx: ApiContext) {
  typed(app).get("/gateway/identity", { schema: { querystring: z.strictObject({}) } }, async () => {
    const { rows } = await ctx.pool.query<{
      kid: string;
      public_key: string;
      document: unknown;
      created_at: Date;
    }>(
      "select kid, public_key, document, created_at from identities where kind = 'gateway' and status = 'active' order by created_at desc limit 1",
    );
    const g = rows[0];
    if (!g) throw new ServiceError("NOT_FOUND", "no Gateway identity is registered");
    return {
      identity: {
        kid: g.kid,
        public_key: g.public_key,
        document: g.document,
        created_at: g.created_at.toISOString(),
      },
    };
  });
}
