import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import {
  policyTemplate,
  policyTemplates,
  requireApprovalDraft,
  validatePolicy,
} from "@countersign/protocol/policy";
import { inTransaction } from "@countersign/core/store";
import { actorOf, audit } from "../../audit/record.js";
import type { ApiContext } from "../../context.js";
import { checkQuota } from "../../orgs/quota.js";
import {
  insertPolicy,
  lintTools,
  listPolicies,
  loadPolicy,
  loadVersion,
  lockAndCountPolicies,
  policyJson,
  setDisclosure,
  versionJson,
  versionsById,
  versionsOf,
  type VersionRow,
} from "../store.js";
import { insertVersion, validDocument } from "../versions.js";
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
      checkQuota(o.plan, "policies", await lockAndCountPolicies(db, o.id));
      const policy = await insertPolicy(db, o.id, p.name, p.disclosure ?? "inherit");
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
    { schema: { params: orgParams, body: fromTemplateBody, response: { 201: createdPolicy } } },
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
    { schema: { params: policyParams, body: versionBody, response: { 201: createdVersion } } },
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
    {
      schema: {
        params: policyParams,
        body: patchBody,
        response: { 200: policyAnswer },
      },
    },
    async (request) => {
      const o = organizationOf(request);
      return inTransaction(ctx.pool, async (db) => {
        const p = await loadPolicy(db, o.id, request.params.policy_id, true);
        await setDisclosure(db, p.id, request.body.agent_disclosure);
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
