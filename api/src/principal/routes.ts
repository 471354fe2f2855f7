import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { isPrincipalValid, principalHistory, principalOf } from "@countersign/core/identities";
import {
  principalStateSchema,
  principalSubmitSchema as body,
  principalSubmittedSchema,
} from "@countersign/protocol/wire";
import { actorOf } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { organizationOf, typed, orgParams } from "../http/shared.js";
import { identityJson } from "../identities/identity-json.js";
import { submitOrganizationPrincipal } from "./submit.js";

const params = orgParams;

/** GET, POST /orgs/<org_id>/principal: the organization's own identity, which signs delegations. */
export async function principalRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  r.get(
    "/orgs/:org_id/principal",
    { schema: { params, querystring: z.strictObject({}), response: { 200: principalStateSchema } } },
    async (request) => {
      const o = organizationOf(request);
      const current = await principalOf(ctx.pool, o.id);
      const history = await principalHistory(ctx.pool, o.id);
      return {
        principal: current ? { ...identityJson(current), valid: isPrincipalValid(current) } : null,
        history: history.map(identityJson),
      };
    },
  );

  r.post(
    "/orgs/:org_id/principal",
    { schema: { params, body, response: { 200: principalSubmittedSchema, 201: principalSubmittedSchema } } },
    async (request, reply) => {
      const o = organizationOf(request);
      const result = await submitOrganizationPrincipal(ctx.pool, {
        organizationId: o.id,
        document: request.body.document,
        predecessor: request.body.predecessor,
        actor: actorOf(request.principal),
      });
      // The conflicting document was kept as proof; the submission itself is refused.
      if (result.outcome === "equivocation")
        throw new ServiceError(
          "IDENTITY_EQUIVOCATION",
          `${result.message}: the principal is permanently invalid; register a replacement`,
        );
      const code = result.outcome === "created" || result.outcome === "replaced" ? 201 : 200;
      return reply.code(code).send({
        principal: { ...identityJson(result.principal), valid: isPrincipalValid(result.principal) },
        outcome: result.outcome,
      });
    },
  );
}
