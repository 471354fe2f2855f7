import type { FastifyInstance } from "fastify";
import { approvalDecisionSubmissionSchema } from "@countersign/protocol/wire";
import { actorOf } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import {
  decodeCursor,
  timeCursor,
  keysetPage,
  organizationOf,
  sessionOf,
  typed,
  orgParams,
} from "../http/shared.js";
import { decideApproval } from "./decide.js";
import { approvalJson, approvalListQuery, approvalParams, approvalResponses } from "./schemas.js";
import { heldArguments, listApprovals, readApproval } from "./store.js";

/**
 * Approval requests (SPEC 2.7, 3.2): list, read, and a person's decision
 * carrying an APPROVAL or REJECTION signed in their browser with a bound
 * personal identity. Every check and refusal is core's decideApproval,
 * shared with the Gateway; a decision wakes every replica's waits.
 */
export async function approvalRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);

  r.get(
    "/orgs/:org_id/approvals",
    {
      schema: {
        params: orgParams,
        querystring: approvalListQuery,
        response: approvalResponses.list,
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const { limit, cursor, status, agent_id } = request.query;
      const after = decodeCursor(cursor, timeCursor);
      const now = new Date();
      const rows = await listApprovals(ctx.pool, o.id, { status, agent_id, after, limit: limit + 1, now });
      return keysetPage(
        rows,
        limit,
        (a) => approvalJson(a, now.getTime()),
        (last) => [last.ar_created_at.toISOString(), last.ar_id],
      );
    },
  );

  r.get(
    "/orgs/:org_id/approvals/:approval_id",
    { schema: { params: approvalParams, response: approvalResponses.one } },
    async (request) => {
      const o = organizationOf(request);
      const a = await readApproval(ctx.pool, o.id, request.params.approval_id);
      // Tool arguments go to the people entitled to decide the call, and to no one else (SPEC 2.7).
      const decides = request.principal.kind === "session" && o.role !== null && a.roles.includes(o.role);
      return {
        approval: {
          ...approvalJson(a),
          arguments: decides ? await heldArguments(ctx.pool, o.id, a.ar_id) : null,
        },
      };
    },
  );

  r.post(
    "/orgs/:org_id/approvals/:approval_id/decision",
    {
      schema: {
        params: approvalParams,
        body: approvalDecisionSubmissionSchema,
        response: approvalResponses.decision,
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const person = sessionOf(request);
      const decision = await decideApproval(ctx, {
        organizationId: o.id,
        approvalId: request.params.approval_id,
        userId: person.userId,
        decision: request.body.decision,
        actor: actorOf(request.principal),
      });
      return {
        approval: approvalJson(await readApproval(ctx.pool, o.id, request.params.approval_id)),
        receipt: decision.receipt
          ? {
              id: decision.receipt.id,
              receipt_object_id: decision.receipt.receiptObjectId,
              outcome: decision.receipt.outcome,
            }
          : null,
      };
    },
  );
}
