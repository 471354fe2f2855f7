import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { createChallenge, personalIdentitiesOf } from "@countersign/core/identities";
import {
  identityAnswerSchema,
  identityBindSchema,
  identityChallengeAnswerSchema,
  identityListSchema,
} from "@countersign/protocol/wire";
import { actorOf } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { sessionOf, typed } from "../http/shared.js";
import { bindIdentity } from "./bind.js";
import { identityJson } from "./identity-json.js";
import { revokeIdentity } from "./revoke.js";

/**
 * POST /me/identity-challenges, GET, POST /me/identities, DELETE
 * /me/identities/<kid>: a person proves possession of an Ed25519 key by
 * signing a challenge, and may then sign approvals with it.
 */
export async function personalIdentityRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  r.post(
    "/me/identity-challenges",
    { schema: { response: { 201: identityChallengeAnswerSchema } } },
    async (request, reply) => {
      const me = sessionOf(request);
      return reply.code(201).send({ challenge: await createChallenge(ctx.pool, me.userId) });
    },
  );

  r.get(
    "/me/identities",
    { schema: { querystring: z.strictObject({}), response: { 200: identityListSchema } } },
    async (request) => {
      const me = sessionOf(request);
      return { items: (await personalIdentitiesOf(ctx.pool, me.userId)).map(identityJson) };
    },
  );

  r.post(
    "/me/identities",
    { schema: { body: identityBindSchema, response: { 201: identityAnswerSchema } } },
    async (request, reply) => {
      const me = sessionOf(request);
      const bound = await bindIdentity(ctx.pool, {
        userId: me.userId,
        challengeId: request.body.challenge_id,
        signature: request.body.signature,
        document: request.body.document,
        actor: actorOf(request.principal),
      });
      return reply.code(201).send({ identity: identityJson(bound) });
    },
  );

  r.delete(
    "/me/identities/:kid",
    {
      schema: {
        params: z.strictObject({ kid: z.string().max(100) }),
        response: { 200: identityAnswerSchema },
      },
    },
    async (request) => {
      const me = sessionOf(request);
      const revoked = await revokeIdentity(ctx.pool, {
        userId: me.userId,
        kid: request.params.kid,
        actor: actorOf(request.principal),
      });
      if (!revoked) throw new ServiceError("NOT_FOUND", "no such identity of yours");
      return { identity: identityJson(revoked) };
    },
  );
}
