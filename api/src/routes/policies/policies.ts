import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import {
  policyTemplate,
  policyTemplates,
  requireApprovalDraft,
  validatePolicy,
  type LintTool,
} from "@countersign/protocol/policy";
import { inTransaction, type Queryable } from "@countersign/core/store";
import { actorOf, audit } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import { checkQuota } from "../../orgs/quota.js";
import {
  POLICY_COLUMNS,
  loadPolicy,
  loadVersion,
  policyJson,
  versionJson,
  versionsById,
  VERSION_COLUMNS,
  type PolicyRow,
  type VersionRow,
} from "../../policies/store.js";
import { insertVersion, validDocument } from "../../policies/versions.js";
import {
  decodeCursor,
  nameCursor,
  isUniqueViolation,
  keysetPage,
  organizationOf,
  orgParams,
  pageQuery,
  typed,
} from "../../http/shared.js";
import {
  createPolicyBody,
  fromTemplateBody,
  policyParams,
  versionBody,
  disclosureSchema,
  documentInput,
} from "./schemas.js";

/** The organization's tools as lint sees them (more warnings with them, docs/policy-language.md 3). */
async function lintTools(db: Queryable, organizationId: string): Promise<LintTool[]> {
  const { rows } = await db.query<{
    exposed_name: string;
    action: string;
    amount_mapping: unknown;
    input_schema: unknown;
  }>("select exposed_name, action, amount_mapping, input_schema from tools where organization_id = $1", [
    organizationId,
  ]);
  return rows.map((t) => ({
    tool: t.exposed_name,
    action: t.action,
    amount: t.amount_mapping !== null,
    input_schema: t.input_schema ?? undefined,
  }));
}

/** Creates a policy, with version 1 as a draft when a document is given; counts against the plan (SPEC 8.6). */
async function createPolicy(
  ctx: ApiContext,
  request: Parameters<typeof organizationOf>[0],
  p: {
    name: string;
    document?: Record<string, unknown>;
    note?: string;
    disclosure?: string;
    origin: "document" | "template";
  },
) {
  const o = organizationOf(request);
  const doc = p.document ? validDocument(p.document) : undefined;
  try {
    return await inTransaction(ctx.pool, async (db) => {
      await db.query("select 1 from organizations where id = $1 for update", [o.id]);
      const { rows: count } = await db.query<{ n: string }>(
        "select count(*) as n from policies where organization_id = $1",
        [o.id],
      );
      checkQuota(o.plan, "policies", Number(count[0]!.n));
      const { rows } = await db.query<PolicyRow>(
        `insert into policies (organization_id, name, agent_disclosure) values ($1, $2, $3) returning ${POLICY_COLUMNS}`,
        [o.id, p.name, p.disclosure ?? "inherit"],
      );
      const policy = rows[0]!;
      const actor = actorOf(request.principal);
      const version = doc
        ? await insertVersion(db, {
            organizationId: o.id,
            policyId: policy.id,
            ...doc,
            note: p.note ?? null,
            origin: p.origin,
            createdBy: actor.label,
          })
        : null;
      await audit(db, {
        organizationId: o.id,
        action: "policy.created",
        actor,
        target: { type: "policy", id: policy.id },
        details: { name: p.name, version_id: version?.id ?? null },
      });
      return {
        policy: policyJson(policy),
        version: version ? versionJson(version, true) : null,
        lint: doc?.lint ?? null,
      };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new ServiceError("NAME_TAKEN", "a policy with this name exists");
    throw err;
  }
}

/**
 * Policies and their versions (SPEC 2.4, 4.4): list, read, create (plan
 * limit), create from a template, the templates, validation, draft
 * versions, and the disclosure setting (which creates no version).
 */
export async function policyRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);

  r.get("/orgs/:org_id/policy-templates", { schema: { params: orgParams } }, async () => ({
    items: policyTemplates,
  }));

  r.get(
    "/orgs/:org_id/policies",
    { schema: { params: orgParams, querystring: z.strictObject(pageQuery) } },
    async (request) => {
      const o = organizationOf(request);
      const { limit, cursor } = request.query;
      const after = decodeCursor(cursor, nameCursor);
      const { rows } = await ctx.pool.query<PolicyRow>(
        `select ${POLICY_COLUMNS} from policies where organization_id = $1
         and ($2::text is null or (name, id) > ($2::text, $3::uuid)) order by name, id limit $4`,
        [o.id, after?.[0] ?? null, after?.[1] ?? null, limit + 1],
      );
      const versions = await versionsById(
        ctx.pool,
        rows.slice(0, limit).flatMap((p) => [p.active_version_id, p.shadow_version_id]),
      );
      const at = (id: string | null) => (id ? (versions.get(id) ?? null) : null);
      return keysetPage(
        rows,
        limit,
        (p) => policyJson(p, { active: at(p.active_version_id), shadow: at(p.shadow_version_id) }),
        (last) => [last.name, last.id],
      );
    },
  );

  r.get("/orgs/:org_id/policies/:policy_id", { schema: { params: policyParams } }, async (request) => {
    const o = organizationOf(request);
    const p = await loadPolicy(ctx.pool, o.id, request.params.policy_id);
    const { rows } = await ctx.pool.query<VersionRow>(
      `select ${VERSION_COLUMNS} from policy_versions where policy_id = $1 order by number desc`,
      [p.id],
    );
    const byId = new Map(rows.map((v) => [v.id, v]));
    const at = (id: string | null) => (id ? (byId.get(id) ?? null) : null);
    // Documents of the versions people work with; the others by their own version route.
    const withDocument = new Set([
      p.active_version_id,
      p.shadow_version_id,
      rows.find((v) => v.status === "draft")?.id,
    ]);
    return {
      policy: policyJson(p, { active: at(p.active_version_id), shadow: at(p.shadow_version_id) }),
      versions: rows.map((v) => versionJson(v, withDocument.has(v.id))),
      examples: p.examples,
    };
  });

  r.post(
    "/orgs/:org_id/policies/validate",
    { schema: { params: orgParams, body: z.strictObject({ document: documentInput }) } },
    async (request) => {
      const o = organizationOf(request);
      const v = validatePolicy(request.body.document, { tools: await lintTools(ctx.pool, o.id) });
      if (!v.ok)
        throw new ServiceError("POLICY_INVALID", "the policy document is invalid", { issues: v.issues });
      return { valid: true, language_revision: v.revision, digest: v.digest, lint: v.lint };
    },
  );

  r.post(
    "/orgs/:org_id/policies",
    { schema: { params: orgParams, body: createPolicyBody } },
    async (request, reply) => {
      const b = request.body;
      return reply.code(201).send(
        await createPolicy(ctx, request, {
          name: b.name,
          document: b.document,
          note: b.note,
          disclosure: b.agent_disclosure,
          origin: "document",
        }),
      );
    },
  );

  r.post(
    "/orgs/:org_id/policies/from-template",
    { schema: { params: orgParams, body: fromTemplateBody } },
    async (request, reply) => {
      const t = policyTemplate(request.body.template_id);
      if (!t) throw new ServiceError("TEMPLATE_NOT_FOUND", "no policy template has this id");
      const created = await createPolicy(ctx, request, {
        name: request.body.name,
        document: t.document as unknown as Record<string, unknown>,
        note: request.body.note,
        origin: "template",
      });
      return reply.code(201).send(created);
    },
  );

  r.post(
    "/orgs/:org_id/policies/:policy_id/versions",
    { schema: { params: policyParams, body: versionBody } },
    async (request, reply) => {
      const o = organizationOf(request);
      const b = request.body;
      const actor = actorOf(request.principal);
      const out = await inTransaction(ctx.pool, async (db) => {
        const p = await loadPolicy(db, o.id, request.params.policy_id, true);
        let doc: ReturnType<typeof validDocument>;
        let source: VersionRow | null = null;
        if ("document" in b) doc = validDocument(b.document);
        else {
          // The require-approval copy of SPEC 3.5, derived by the engine from the target.
          source = await loadVersion(db, p.id, b.require_approval_copy_of).catch(() => {
            throw new ServiceError(
              "POLICY_NOT_FOUND",
              "require_approval_copy_of names no version of this policy",
              {
                issues: [
                  {
                    path: "require_approval_copy_of",
                    code: "not_found",
                    message: "no such version of this policy",
                  },
                ],
              },
            );
          });
          doc = validDocument(requireApprovalDraft(source.document));
        }
        const v = await insertVersion(db, {
          organizationId: o.id,
          policyId: p.id,
          document: doc.document,
          digest: doc.digest,
          revision: doc.revision,
          note: b.note ?? null,
          origin: source ? "require_approval_copy" : "document",
          sourceVersionId: source?.id ?? null,
          createdBy: actor.label,
        });
        await audit(db, {
          organizationId: o.id,
          action: "policy.version_created",
          actor,
          target: { type: "policy", id: p.id },
          details: { version_id: v.id, version: v.number, digest: v.digest, origin: v.origin },
        });
        return { version: versionJson(v, true), lint: doc.lint };
      });
      return reply.code(201).send(out);
    },
  );

  r.patch(
    "/orgs/:org_id/policies/:policy_id",
    { schema: { params: policyParams, body: z.strictObject({ agent_disclosure: disclosureSchema }) } },
    async (request) => {
      const o = organizationOf(request);
      return inTransaction(ctx.pool, async (db) => {
        const p = await loadPolicy(db, o.id, request.params.policy_id, true);
        // The disclosure setting is not part of any document: it creates no version (SPEC 2.4).
        await db.query("update policies set agent_disclosure = $2 where id = $1", [
          p.id,
          request.body.agent_disclosure,
        ]);
        await audit(db, {
          organizationId: o.id,
          action: "policy.updated",
          actor: actorOf(request.principal),
          target: { type: "policy", id: p.id },
          details: { agent_disclosure: { from: p.agent_disclosure, to: request.body.agent_disclosure } },
        });
        return { policy: policyJson(await loadPolicy(db, o.id, p.id)) };
      });
    },
  );
}
