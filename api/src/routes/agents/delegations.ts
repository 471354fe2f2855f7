import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import {
  checkDelegation,
  timestamp,
  verifySignedObject,
  type BodyOf,
  type SignedObject,
} from "@countersign/protocol/evidence";
import {
  delegationSubmissionSchema,
  revocationSubmissionSchema,
  type Delegation,
} from "@countersign/protocol/wire";
import { principalOf, isPrincipalValid, storedIdentity } from "@countersign/core/identities";
import { inTransaction } from "@countersign/core/store";
import { actorOf, audit } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import {
  decodeCursor,
  timeCursor,
  isUniqueViolation,
  keysetPage,
  organizationOf,
  pageQuery,
  typed,
} from "../../http/shared.js";
import { readAgent } from "./agents.js";

/** SPEC 2.5, 8.5. */
export const MAX_ACTIVE_DELEGATIONS = 100;
/** A browser's clock may run a little ahead of ours; an object issued further in the future is refused. */
const CLOCK_SKEW_MS = 60_000;

interface DelegationRow {
  id: string;
  agent_id: string;
  object_id: string;
  object: SignedObject<BodyOf<"DELEGATION">>;
  permissions: string[];
  expires_at: Date;
  created_at: Date;
  revoked_at: Date | null;
  revocation: SignedObject<BodyOf<"REVOCATION">> | null;
}
const COLUMNS =
  "id, agent_id, object_id, object, permissions, expires_at, created_at, revoked_at, revocation";

function delegationJson(d: DelegationRow, now = Date.now()): Delegation {
  return {
    id: d.id,
    agent_id: d.agent_id,
    object_id: d.object_id,
    permissions: d.permissions,
    expires_at: d.expires_at.toISOString(),
    state: d.revoked_at ? "revoked" : d.expires_at.getTime() <= now ? "expired" : "active",
    created_at: d.created_at.toISOString(),
    revoked_at: d.revoked_at?.toISOString() ?? null,
    object: d.object,
    revocation: d.revocation,
  };
}

const refused = (message: string, serviceCode: string) =>
  new ServiceError("VERIFICATION_FAILED", message, { service_code: serviceCode });

/** An action the permission grants, so checkDelegation can judge signer, agent, issue time and expiry with the Gateway's own rule. */
const actionGrantedBy = (permission: string) =>
  permission === "*"
    ? "any.action"
    : permission.endsWith(".*")
      ? `${permission.slice(0, -1)}any`
      : permission;

/**
 * Delegations (SPEC 2.5): an owner or admin submits a DELEGATION already
 * signed by the organization principal in their browser; we verify it and
 * store it. Revocation is a REVOCATION signed by the same principal; the
 * decision pipeline reads unrevoked delegations on every call, so it takes
 * effect on the next decision.
 */
export async function delegationRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  const agentParams = z.strictObject({ org_id: z.uuid(), agent_id: z.uuid() });

  r.get(
    "/orgs/:org_id/agents/:agent_id/delegations",
    { schema: { params: agentParams, querystring: z.strictObject({ ...pageQuery }) } },
    async (request) => {
      const o = organizationOf(request);
      await readAgent(ctx.pool, o.id, request.params.agent_id);
      const { limit, cursor } = request.query;
      const after = decodeCursor(cursor, timeCursor);
      const { rows } = await ctx.pool.query<DelegationRow>(
        `select ${COLUMNS} from delegations where agent_id = $1 and organization_id = $2
         and ($3::timestamptz is null or (created_at, id) < ($3::timestamptz, $4::uuid))
       order by created_at desc, id desc limit $5`,
        [request.params.agent_id, o.id, after?.[0] ?? null, after?.[1] ?? null, limit + 1],
      );
      return keysetPage(
        rows,
        limit,
        (d) => delegationJson(d),
        (last) => [last.created_at.toISOString(), last.id],
      );
    },
  );

  r.post(
    "/orgs/:org_id/agents/:agent_id/delegations",
    { schema: { params: agentParams, body: delegationSubmissionSchema } },
    async (request, reply) => {
      const o = organizationOf(request);
      const now = new Date();
      const row = await inTransaction(ctx.pool, async (db) => {
        const agent = await readAgent(db, o.id, request.params.agent_id, true);
        const principal = await principalOf(db, o.id);
        if (!principal)
          throw new ServiceError(
            "NO_PRINCIPAL",
            "the organization has no principal; an owner registers one first",
          );
        if (principal.status === "equivocated")
          throw new ServiceError(
            "IDENTITY_EQUIVOCATION",
            "the organization principal equivocated; an owner registers a replacement",
          );
        if (!isPrincipalValid(principal))
          throw new ServiceError("NO_PRINCIPAL", "the organization has no valid principal");
        const check = verifySignedObject(request.body.delegation, principal.documents, {
          expectedActor: principal.kid as never,
        });
        if (!check.ok)
          throw refused(
            `the delegation does not verify against the organization principal: ${check.message}`,
            check.code,
          );
        if (check.object.body.type !== "DELEGATION")
          throw refused("the object is not a DELEGATION", "OBJECT_WRONG_TYPE");
        const d = check.object as SignedObject<BodyOf<"DELEGATION">>;
        if (d.body.payload.organization_id !== o.id)
          throw refused("the delegation is for another organization", "DELEGATION_INVALID");
        if (Date.parse(d.body.issued_at) > now.getTime() + CLOCK_SKEW_MS)
          throw refused("the delegation is issued in the future", "DELEGATION_INVALID");
        const use = checkDelegation(
          d,
          {
            principal: principal.kid,
            agentId: agent.id,
            action: actionGrantedBy(d.body.payload.permissions[0]!),
            at: timestamp(Math.max(now.getTime(), Date.parse(d.body.issued_at))),
          },
          [],
        );
        if (!use.ok) throw refused(use.message, use.code);

        const { rows: n } = await db.query<{ n: number }>(
          "select count(*)::int as n from delegations where agent_id = $1 and revoked_at is null and expires_at > $2",
          [agent.id, now],
        );
        if (n[0]!.n >= MAX_ACTIVE_DELEGATIONS) {
          throw new ServiceError(
            "CONFLICT",
            `an agent has at most ${MAX_ACTIVE_DELEGATIONS} active delegations; revoke one first`,
            { reason: "TOO_MANY_DELEGATIONS" },
          );
        }
        let inserted: DelegationRow;
        try {
          const { rows } = await db.query<DelegationRow>(
            `insert into delegations (organization_id, agent_id, object_id, object, permissions, expires_at) values ($1, $2, $3, $4, $5, $6) returning ${COLUMNS}`,
            [o.id, agent.id, d.id, JSON.stringify(d), d.body.payload.permissions, d.body.payload.expires_at],
          );
          inserted = rows[0]!;
        } catch (err) {
          if (isUniqueViolation(err))
            throw new ServiceError("CONFLICT", "this delegation was already submitted", {
              reason: "ALREADY_SUBMITTED",
            });
          throw err;
        }
        await audit(db, {
          organizationId: o.id,
          action: "delegation.created",
          actor: actorOf(request.principal),
          target: { type: "delegation", id: inserted.id },
          details: {
            agent_id: agent.id,
            object_id: d.id,
            permissions: d.body.payload.permissions,
            expires_at: d.body.payload.expires_at,
          },
        });
        return inserted;
      });
      return reply.code(201).send({ delegation: delegationJson(row) });
    },
  );

  r.post(
    "/orgs/:org_id/delegations/:delegation_id/revoke",
    {
      schema: {
        params: z.strictObject({ org_id: z.uuid(), delegation_id: z.uuid() }),
        body: revocationSubmissionSchema,
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const now = new Date();
      const row = await inTransaction(ctx.pool, async (db) => {
        const { rows } = await db.query<DelegationRow>(
          `select ${COLUMNS} from delegations where id = $1 and organization_id = $2 for update`,
          [request.params.delegation_id, o.id],
        );
        const d = rows[0];
        if (!d) throw new ServiceError("NOT_FOUND", "delegation not found");
        if (d.revoked_at) throw new ServiceError("INVALID_STATE", "the delegation is already revoked");
        // Only the delegation's own signer can revoke it (docs/evidence.md 4).
        const signer = await storedIdentity(db, d.object.body.actor);
        if (!signer || signer.kind !== "principal" || signer.organizationId !== o.id)
          throw refused(
            "the delegation's signer is not a principal of this organization",
            "IDENTITY_UNKNOWN",
          );
        const check = verifySignedObject(request.body.revocation, signer.documents, {
          expectedActor: signer.kid as never,
        });
        if (!check.ok)
          throw refused(
            `the revocation does not verify against the delegation's principal: ${check.message}`,
            check.code,
          );
        const rev = check.object as SignedObject<BodyOf<"REVOCATION">>;
        if (rev.body.type !== "REVOCATION")
          throw refused("the object is not a REVOCATION", "OBJECT_WRONG_TYPE");
        if (rev.body.payload.delegation !== d.object_id)
          throw refused("the revocation names another delegation", "REVOCATION_INVALID");
        if (Date.parse(rev.body.issued_at) > now.getTime() + CLOCK_SKEW_MS)
          throw refused("the revocation is issued in the future", "REVOCATION_INVALID");
        const { rows: after } = await db.query<DelegationRow>(
          `update delegations set revoked_at = $2, revocation_object_id = $3, revocation = $4 where id = $1 returning ${COLUMNS}`,
          [d.id, now, rev.id, JSON.stringify(rev)],
        );
        await audit(db, {
          organizationId: o.id,
          action: "delegation.revoked",
          actor: actorOf(request.principal),
          target: { type: "delegation", id: d.id },
          details: { agent_id: d.agent_id, revocation_object_id: rev.id },
        });
        return after[0]!;
      });
      return { delegation: delegationJson(row) };
    },
  );
}
