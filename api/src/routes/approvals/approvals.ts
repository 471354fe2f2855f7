import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { decideApproval } from "@countersign/core/approvals";
import { ServiceError } from "@countersign/protocol/errors";
import type { Queryable } from "@countersign/core/store";
import {
  ACTION_COLUMNS,
  ACTION_FROM,
  actionSummaryJson,
  policyDecisionJson,
  type ActionRow,
} from "../../actions/action-json.js";
import { actorOf, audit } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import { gatewayIdentityOf } from "../../evidence/options.js";
import {
  decodeCursor,
  timeCursor,
  keysetPage,
  organizationOf,
  pageQuery,
  sessionOf,
  typed,
} from "../../http/shared.js";

interface ApprovalRow extends ActionRow {
  ar_id: string;
  ar_status: string;
  roles: string[];
  approver_count: number;
  approver_kids: string[];
  ar_expires_at: Date;
  decided_at: Date | null;
  decided_by_kid: string | null;
  decision_object_id: string | null;
  ar_created_at: Date;
  task_object_id: string | null;
  proposal: unknown;
}

const COLUMNS = `ar.id as ar_id, ar.status as ar_status, ar.roles, ar.approver_count, ar.approver_kids, ar.expires_at as ar_expires_at,
  ar.decided_at, ar.decided_by_kid, ar.decision_object_id, ar.created_at as ar_created_at, pa.task_object_id,
  po.object as proposal, ${ACTION_COLUMNS}`;
const FROM = `approval_requests ar join ${ACTION_FROM} on pa.id = ar.protected_action_id
  left join signed_objects po on po.object_id = pa.proposal_object_id`;

/** A pending request past its expiry is shown as expired: nobody can decide it any more. */
const statusOf = (a: ApprovalRow, now: number) =>
  a.ar_status === "pending" && a.ar_expires_at.getTime() <= now ? "expired" : a.ar_status;

/**
 * The approval request of SPEC 2.7 (docs/evidence-api.md "Approvals"). It
 * carries the signed PROPOSAL so a browser can sign the APPROVAL or
 * REJECTION that answers it (thread, parent, call, on_behalf_of).
 */
function approvalJson(a: ApprovalRow, now = Date.now()) {
  return {
    id: a.ar_id,
    status: statusOf(a, now),
    protected_action_id: a.id,
    roles: a.roles,
    approver_count: a.approver_count,
    approver_kids: a.approver_kids,
    expires_at: a.ar_expires_at.toISOString(),
    decided_at: a.decided_at?.toISOString() ?? null,
    decided_by_kid: a.decided_by_kid,
    decision_object_id: a.decision_object_id,
    created_at: a.ar_created_at.toISOString(),
    action: {
      ...actionSummaryJson(a),
      amount: a.amount === null ? null : { value: a.amount, currency: a.currency },
      arguments_digest: a.arguments_digest,
      environment: a.environment,
    },
    policy: policyDecisionJson(a),
    task_object_id: a.task_object_id,
    proposal: a.proposal ?? null,
  };
}

async function readApproval(db: Queryable, organizationId: string, id: string): Promise<ApprovalRow> {
  const { rows } = await db.query<ApprovalRow>(
    `select ${COLUMNS} from ${FROM} where ar.id = $1 and ar.organization_id = $2`,
    [id, organizationId],
  );
  if (!rows[0]) throw new ServiceError("NOT_FOUND", "approval request not found");
  return rows[0];
}

const approvalParams = z.strictObject({ org_id: z.uuid(), approval_id: z.uuid() });

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
        params: z.strictObject({ org_id: z.uuid() }),
        querystring: z.strictObject({
          ...pageQuery,
          status: z
            .enum(["pending", "approved", "rejected", "expired", "superseded", "cancelled"])
            .optional(),
          agent_id: z.uuid().optional(),
        }),
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const { limit, cursor, status, agent_id } = request.query;
      const after = decodeCursor(cursor, timeCursor);
      const now = new Date();
      // "pending" means still decidable; "expired" includes pending requests past their expiry.
      const { rows } = await ctx.pool.query<ApprovalRow>(
        `select ${COLUMNS} from ${FROM}
          where ar.organization_id = $1
            and ($2::text is null
                 or ($2 = 'pending' and ar.status = 'pending' and ar.expires_at > $3)
                 or ($2 = 'expired' and (ar.status = 'expired' or (ar.status = 'pending' and ar.expires_at <= $3)))
                 or ($2 not in ('pending', 'expired') and ar.status = $2))
            and ($4::uuid is null or pa.agent_id = $4)
            and ($5::timestamptz is null or (ar.created_at, ar.id) < ($5::timestamptz, $6::uuid))
          order by ar.created_at desc, ar.id desc limit $7`,
        [o.id, status ?? null, now, agent_id ?? null, after?.[0] ?? null, after?.[1] ?? null, limit + 1],
      );
      return keysetPage(
        rows,
        limit,
        (a) => approvalJson(a, now.getTime()),
        (last) => [last.ar_created_at.toISOString(), last.ar_id],
      );
    },
  );

  r.get("/orgs/:org_id/approvals/:approval_id", { schema: { params: approvalParams } }, async (request) => {
    const o = organizationOf(request);
    return { approval: approvalJson(await readApproval(ctx.pool, o.id, request.params.approval_id)) };
  });

  r.post(
    "/orgs/:org_id/approvals/:approval_id/decision",
    {
      schema: {
        params: approvalParams,
        body: z.strictObject({ decision: z.record(z.string(), z.unknown()) }),
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const person = sessionOf(request);
      await readApproval(ctx.pool, o.id, request.params.approval_id);
      const identity = await gatewayIdentityOf(ctx.pool, ctx.evidence);
      const decision = await decideApproval(ctx.pool, {
        organizationId: o.id,
        approvalRequestId: request.params.approval_id,
        userId: person.userId,
        object: request.body.decision,
        identity,
        alsoRecord: (db, d) =>
          audit(db, {
            organizationId: o.id,
            action: d.status === "approved" ? "approval.approved" : "approval.rejected",
            actor: actorOf(request.principal),
            target: { type: "approval_request", id: request.params.approval_id },
            details: {
              protected_action_id: d.protectedActionId,
              decision_object_id: d.decisionObjectId,
              receipt_id: d.receipt?.id ?? null,
            },
          }),
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
