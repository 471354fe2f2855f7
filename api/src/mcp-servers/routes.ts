import type { FastifyInstance } from "fastify";
import { ServiceError } from "@countersign/protocol/errors";
import { encryptMcpCredential } from "@countersign/core/mcp-servers";
import { inTransaction } from "@countersign/core/store";
import { actorOf, audit } from "../audit/record.js";
import { requireAdminSignedIn } from "../configuration/admin-signed-in.js";
import type { ApiContext } from "../context.js";
import { mcpOptionsOf } from "../mcp/options.js";
import { checkDeclaredIdentity } from "../mcp/service-aware.js";
import { checkQuota } from "../orgs/quota.js";
import { sameBinding, toolBinding } from "../tools/binding.js";
import { recordDeclarations } from "../tools/declarations.js";
import { decodeCursor, timeCursor, keysetPage, organizationOf, typed } from "../http/shared.js";
import {
  createBody,
  deleted,
  discoveryAnswer,
  listQuery,
  noQuery,
  orgParams,
  patchBody,
  serverAnswer,
  serverPage,
  serverParams,
} from "./schemas.js";
import { checkServerIdentityDocument, registerServerIdentity } from "./server-identity.js";
import {
  deleteServer,
  hasRecordedActions,
  insertServer,
  listServers,
  lockAndCountServers,
  lockServerTools,
  readServer,
  serverJson,
  setFirstCredential,
  setToolBinding,
  toolIdsByUpstreamName,
  updateServer,
} from "./store.js";
import { credentialKey, declarationAfterPatch, discoverServer, requireAllowedUrl } from "./upstream.js";

/**
 * MCP servers and decision-only integrations (SPEC 2.3): the URL follows the
 * address rules of 6.4; the authorization header is stored encrypted and
 * never returned; a change to what enabled tools are bound to (URL,
 * credential, server identity) needs an admin signed in and leaves those
 * tools needing re-authorization (the Gateway refuses
 * TOOL_REAUTHORIZATION_REQUIRED until POST .../tools/<id>/authorize).
 */
export async function mcpServerRoutes(app: FastifyInstance, ctx: ApiContext) {
  const r = typed(app);
  const mcp = mcpOptionsOf(ctx);

  r.get(
    "/orgs/:org_id/mcp-servers",
    { schema: { params: orgParams, querystring: listQuery, response: { 200: serverPage } } },
    async (request) => {
      const o = organizationOf(request);
      const { limit, cursor, kind } = request.query;
      const after = decodeCursor(cursor, timeCursor);
      const rows = await listServers(ctx.pool, o.id, { kind, after, limit: limit + 1 });
      return keysetPage(rows, limit, serverJson, (last) => [last.created_at.toISOString(), last.id]);
    },
  );

  r.get(
    "/orgs/:org_id/mcp-servers/:server_id",
    { schema: { params: serverParams, querystring: noQuery, response: { 200: serverAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      return { mcp_server: serverJson(await readServer(ctx.pool, o.id, request.params.server_id)) };
    },
  );

  r.post(
    "/orgs/:org_id/mcp-servers",
    { schema: { params: orgParams, body: createBody, response: { 201: serverAnswer } } },
    async (request, reply) => {
      const o = organizationOf(request);
      const b = request.body;
      if (b.kind === "mcp") await requireAllowedUrl(b.url, mcp);
      const key = b.kind === "mcp" && b.authorization !== undefined ? credentialKey(mcp) : undefined;
      const created = await inTransaction(ctx.pool, async (db) => {
        checkQuota(o.plan, "mcpServers", await lockAndCountServers(db, o.id));
        const id = await insertServer(db, o.id, {
          name: b.name,
          kind: b.kind,
          url: b.kind === "mcp" ? b.url : null,
          status: b.status,
        });
        if (key && b.kind === "mcp" && b.authorization !== undefined)
          await setFirstCredential(db, id, encryptMcpCredential(key, id, b.authorization));
        await audit(db, {
          organizationId: o.id,
          action: "mcp_server.created",
          actor: actorOf(request.principal),
          target: { type: "mcp_server", id },
          details: {
            name: b.name,
            kind: b.kind,
            credential_set: b.kind === "mcp" && b.authorization !== undefined,
          },
        });
        return readServer(db, o.id, id);
      });
      return reply.code(201).send({ mcp_server: serverJson(created) });
    },
  );

  r.patch(
    "/orgs/:org_id/mcp-servers/:server_id",
    { schema: { params: serverParams, body: patchBody, response: { 200: serverAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      const b = request.body;
      if (b.url !== undefined) await requireAllowedUrl(b.url, mcp);
      const key = typeof b.authorization === "string" ? credentialKey(mcp) : undefined;
      // The server is asked what it declares before the row is locked (the exchange may take
      // seconds); the answer counts only if the server did not change meanwhile.
      const before = await readServer(ctx.pool, o.id, request.params.server_id);
      if (before.kind === "mcp" && b.server_identity)
        checkServerIdentityDocument(o.id, before.id, b.server_identity);
      const probe = await declarationAfterPatch(ctx, o.id, before, b);
      const updated = await inTransaction(ctx.pool, async (db) => {
        const s = await readServer(db, o.id, request.params.server_id, true);
        if (
          s.kind === "decision_only" &&
          (b.url !== undefined || b.authorization !== undefined || b.server_identity !== undefined)
        ) {
          throw new ServiceError(
            "CALLER_EXECUTED",
            "a decision-only integration has no URL, credential or server identity; only name or status can change",
          );
        }
        const next = { ...s };
        if (b.url !== undefined) next.url = b.url;
        if (b.authorization !== undefined) {
          next.credential_version = s.credential_version + 1;
          next.credential_encrypted =
            b.authorization === null ? null : encryptMcpCredential(key!, s.id, b.authorization);
        }
        if (b.server_identity !== undefined)
          next.server_kid =
            b.server_identity === null
              ? null
              : await registerServerIdentity(db, o.id, s.id, b.server_identity);
        if (probe && next.server_kid !== null) {
          if (
            probe.seen.url !== s.url ||
            probe.seen.credential_version !== s.credential_version ||
            probe.seen.server_kid !== s.server_kid
          )
            throw new ServiceError("CONFLICT", "the MCP server was changed meanwhile; try again", {
              reason: "CHANGED_MEANWHILE",
            });
          await checkDeclaredIdentity(db, probe.declared, next.server_kid);
        }
        // Which tools this changes the binding of; enabled ones need an admin signed in.
        const tools = await lockServerTools(db, s.id);
        const rebound = tools
          .map((t) => ({ t, binding: toolBinding(next, t) }))
          .filter(({ t, binding }) => !sameBinding(t.binding, binding));
        if (rebound.some(({ t }) => t.enabled))
          requireAdminSignedIn(request, "changing what an enabled tool is bound to");
        await updateServer(db, { ...next, name: b.name ?? s.name, status: b.status ?? s.status });
        for (const { t, binding } of rebound) await setToolBinding(db, t.id, binding);
        const fields = Object.keys(b).filter((k) => b[k as keyof typeof b] !== undefined);
        await audit(db, {
          organizationId: o.id,
          action: "mcp_server.updated",
          actor: actorOf(request.principal),
          target: { type: "mcp_server", id: s.id },
          details: { fields, rebound_tool_ids: rebound.map(({ t }) => t.id) },
        });
        return readServer(db, o.id, s.id);
      });
      return { mcp_server: serverJson(updated) };
    },
  );

  r.delete(
    "/orgs/:org_id/mcp-servers/:server_id",
    { schema: { params: serverParams, response: { 204: deleted } } },
    async (request, reply) => {
      const o = organizationOf(request);
      await inTransaction(ctx.pool, async (db) => {
        const s = await readServer(db, o.id, request.params.server_id, true);
        if (await hasRecordedActions(db, s.id))
          throw new ServiceError(
            "IN_USE",
            "tools of this MCP server have recorded actions; disable it instead",
          );
        await deleteServer(db, s.id);
        await audit(db, {
          organizationId: o.id,
          action: "mcp_server.deleted",
          actor: actorOf(request.principal),
          target: { type: "mcp_server", id: s.id },
          details: { name: s.name },
        });
      });
      return reply.code(204).send();
    },
  );

  r.post(
    "/orgs/:org_id/mcp-servers/:server_id/discover",
    { schema: { params: serverParams, response: { 200: discoveryAnswer } } },
    async (request) => {
      const o = organizationOf(request);
      const s = await readServer(ctx.pool, o.id, request.params.server_id);
      const found = await discoverServer(ctx, o.id, s);
      // What the server declares now is recorded on the tools made from it (a change needs re-authorization).
      await recordDeclarations(ctx.pool, request, o.id, s.id, found.tools);
      const byName = await toolIdsByUpstreamName(ctx.pool, s.id);
      return {
        tools: found.tools.map((t) => ({
          name: t.name,
          description: t.description,
          input_schema: t.input_schema,
          schema_valid: t.schema_problem === null,
          schema_problem: t.schema_problem,
          declaration: t.declaration,
          tool_id: byName.get(t.name) ?? null,
        })),
        pages: found.pages,
        bytes: found.bytes,
      };
    },
  );
}
