import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { policyTemplate, policyTemplates, validatePolicy } from "@countersign/protocol/policy";
import { actorOf } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import { createVersion } from "../create-version.js";
import { createPolicy } from "../create.js";
import {
  lintTools,
  listPolicies,
  loadPolicy,
  loadVersion,
  policyJson,
  versionJson,
  versionsById,
  versionsOf,
} from "../store.js";
import { updatePolicy } from "../update.js";
import {
  decodeCursor,
  nameCursor,
  keysetPage,
  organizationOf,
  orgParams,
  pageQuery,
  typed,
} from "../../http/shared.js";
import {
  createdPolicy,
  createdVersion,
  policyAnswer,
  policyDetail,
  policyPage,
  templatesAnswer,
  validateAnswer,
  createPolicyBody,
  fromTemplateBody,
  policyParams,
  versionAnswer,
  versionBody,
  versionParams,
  patchBody,
  documentInput,
} from "../schemas.js";

/**
 * Policies and their versions (SPEC 2.4, 4.4): list, read, create (plan
 * limit), create from a template, the templates, validation, draft
 * versions, and the disclosure setting (which creates no version). The
 * changes are operations of their own (create.ts, create-version.ts, update.ts).
 */
export async function policyRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);

  r.get(
    "/orgs/:org_id/policy-templates",
    { schema: { params: orgParams, response: { 200: templatesAnswer } } },
    async () => ({
      items: policyTemplates,
    }),
  );

  r.get(
    "/orgs/:org_id/policies",
    { schema: { params: orgParams, querystring: z.strictObject(pageQuery), response: { 200: policyPage } } },
    async (request) => {
      const o = organizationOf(request);
      const { limit, cursor } = request.query;
      const after = decodeCursor(cursor, nameCursor);
      const rows = await listPolicies(ctx.pool, o.id, { after, limit: limit + 1 });
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

  r.get(
    "/orgs/:org_id/policies/:policy_id",
    { schema: { params: policyParams, response: { 200: policyDetail } } },
    async (request) => {
      const o = organizationOf(request);
      const p = await loadPolicy(ctx.pool, o.id, request.params.policy_id);
      const rows = await versionsOf(ctx.pool, p.id);
      const byId = new Map(rows.map((v) => [v.id, v]));
      const at = (id: string | null) => (id ? (byId.get(id) ?? null) : null);
      // Documents of the versions people work with; the others by their own version route (below).
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
    },
  );

  // Any version's whole document, a superseded one too: what a person reads before a rollback,
  // and what a decision made under it evaluated (its digest is signed into the TASK).
  r.get(
    "/orgs/:org_id/policies/:policy_id/versions/:version_id",
    { schema: { params: versionParams, response: { 200: versionAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      const p = await loadPolicy(ctx.pool, o.id, request.params.policy_id);
      const v = await loadVersion(ctx.pool, p.id, request.params.version_id);
      return { version: { ...versionJson(v), document: v.document } };
    },
  );

  r.post(
    "/orgs/:org_id/policies/validate",
    {
      schema: {
        params: orgParams,
        body: z.strictObject({ document: documentInput }),
        response: { 200: validateAnswer },
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const v = validatePolicy(request.body.document, { tools: await lintTools(ctx.pool, o.id) });
      if (!v.ok)
        throw new ServiceError("POLICY_INVALID", "the policy document is invalid", { issues: v.issues });
      return { valid: true as const, language_revision: v.revision, digest: v.digest, lint: v.lint };
    },
  );

  r.post(
    "/orgs/:org_id/policies",
    { schema: { params: orgParams, body: createPolicyBody, response: { 201: createdPolicy } } },
    async (request, reply) => {
      const b = request.body;
      return reply.code(201).send(
        await createPolicy(ctx.pool, {
          organization: organizationOf(request),
          name: b.name,
          document: b.document,
          note: b.note,
          disclosure: b.agent_disclosure,
          origin: "document",
          actor: actorOf(request.principal),
        }),
      );
    },
  );

  r.post(
    "/orgs/:org_id/policies/from-template",
    { schema: { params: orgParams, body: fromTemplateBody, response: { 201: createdPolicy } } },
    async (request, reply) => {
      const t = policyTemplate(request.body.template_id);
      if (!t) throw new ServiceError("TEMPLATE_NOT_FOUND", "no policy template has this id");
      const created = await createPolicy(ctx.pool, {
        organization: organizationOf(request),
        name: request.body.name,
        document: t.document as unknown as Record<string, unknown>,
        note: request.body.note,
        origin: "template",
        actor: actorOf(request.principal),
      });
      return reply.code(201).send(created);
    },
  );

  r.post(
    "/orgs/:org_id/policies/:policy_id/versions",
    { schema: { params: policyParams, body: versionBody, response: { 201: createdVersion } } },
    async (request, reply) => {
      const o = organizationOf(request);
      const out = await createVersion(ctx.pool, {
        organizationId: o.id,
        policyId: request.params.policy_id,
        body: request.body,
        actor: actorOf(request.principal),
      });
      return reply.code(201).send(out);
    },
  );

  r.patch(
    "/orgs/:org_id/policies/:policy_id",
    {
      schema: {
        params: policyParams,
        body: patchBody,
        response: { 200: policyAnswer },
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const policy = await updatePolicy(ctx.pool, {
        organizationId: o.id,
        policyId: request.params.policy_id,
        disclosure: request.body.agent_disclosure,
        actor: actorOf(request.principal),
      });
      return { policy };
    },
  );
}
