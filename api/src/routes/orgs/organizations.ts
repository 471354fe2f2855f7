import { randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { inTransaction } from "@countersign/core/store";
import { audit, actorOf } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import { isPlan } from "@countersign/core/plans";
import { ORGANIZATION_COLUMNS, organizationJson, type OrganizationRow } from "../../orgs/serialize.js";
import { isUniqueViolation, nameSchema, organizationOf, sessionOf, typed } from "../../http/shared.js";

const slugSchema = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, "lowercase letters, digits and inner hyphens, at most 63");

function slugFrom(name: string): string {
  const base =
    name
      .toLowerCase()
      .normalize("NFKD")
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40) || "org";
  return `${base}-${randomBytes(3).toString("hex")}`;
}

/** GET /orgs (the caller's), POST /orgs, GET /orgs/<id>, POST /orgs/<id>/switch. */
export async function organizationRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  const planOf = (o: OrganizationRow) => (isPlan(o.plan) ? o.plan : ctx.defaultPlan);

  r.get("/orgs", { schema: { querystring: z.strictObject({}) } }, async (request) => {
    const s = sessionOf(request);
    const { rows } = await ctx.pool.query<OrganizationRow & { role: string }>(
      `select ${ORGANIZATION_COLUMNS.split(", ")
        .map((c) => `o.${c}`)
        .join(", ")}, m.role
         from memberships m join organizations o on o.id = m.organization_id
        where m.user_id = $1 order by o.created_at, o.id`,
      [s.userId],
    );
    return { items: rows.map((o) => organizationJson(o, planOf(o), o.role)), next_cursor: null };
  });

  r.post(
    "/orgs",
    { schema: { body: z.strictObject({ name: nameSchema, slug: slugSchema.optional() }) } },
    async (request, reply) => {
      const s = sessionOf(request);
      const org = await inTransaction(ctx.pool, async (db) => {
        let row: OrganizationRow;
        try {
          const { rows } = await db.query<OrganizationRow>(
            `insert into organizations (name, slug) values ($1, $2) returning ${ORGANIZATION_COLUMNS}`,
            [request.body.name, request.body.slug ?? slugFrom(request.body.name)],
          );
          row = rows[0]!;
        } catch (err) {
          if (isUniqueViolation(err))
            throw new ServiceError("SLUG_TAKEN", "another organization has this slug");
          throw err;
        }
        await db.query("insert into memberships (organization_id, user_id, role) values ($1, $2, 'owner')", [
          row.id,
          s.userId,
        ]);
        await db.query("update sessions set current_organization_id = $2 where id = $1", [
          s.sessionId,
          row.id,
        ]);
        await audit(db, {
          organizationId: row.id,
          action: "organization.created",
          actor: actorOf(request.principal),
          target: { type: "organization", id: row.id },
        });
        return row;
      });
      return reply.code(201).send({ organization: organizationJson(org, planOf(org), "owner") });
    },
  );

  r.get(
    "/orgs/:org_id",
    { schema: { params: z.strictObject({ org_id: z.uuid() }), querystring: z.strictObject({}) } },
    async (request) => {
      const o = organizationOf(request);
      const { rows } = await ctx.pool.query<OrganizationRow>(
        `select ${ORGANIZATION_COLUMNS} from organizations where id = $1`,
        [o.id],
      );
      return { organization: organizationJson(rows[0]!, o.plan, o.role) };
    },
  );

  r.post(
    "/orgs/:org_id/switch",
    { schema: { params: z.strictObject({ org_id: z.uuid() }) } },
    async (request) => {
      const s = sessionOf(request);
      const o = organizationOf(request);
      await ctx.pool.query("update sessions set current_organization_id = $2 where id = $1", [
        s.sessionId,
        o.id,
      ]);
      return { current_organization_id: o.id };
    },
  );
}
