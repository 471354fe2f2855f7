import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ServiceError } from "@countersign/protocol/errors";
import { verifyIdentityDocument } from "@countersign/protocol/evidence";
import {
  AUTHORIZATION_PATTERN,
  MAX_AUTHORIZATION_LENGTH,
  decryptMcpCredential,
  encryptMcpCredential,
} from "@countersign/core/mcp-servers";
import { checkPublicUrl, MAX_URL_LENGTH } from "@countersign/core/net";
import { inTransaction, type Queryable } from "@countersign/core/store";
import { actorOf, audit } from "../../audit/record.js";
import { requireAdminSignedIn } from "../../configuration/admin-signed-in.js";
import type { ApiContext } from "../../context.js";
import { discoverTools, readDeclaration } from "../../mcp/discovery.js";
import { withDiscoverySlot } from "../../mcp/discovery-slots.js";
import { mcpOptionsOf, type McpOptions } from "../../mcp/options.js";
import { checkDeclaredIdentity } from "../../mcp/service-aware.js";
import { checkQuota } from "../../orgs/quota.js";
import { sameBinding, toolBinding } from "../../tools/binding.js";
import {
  decodeCursor,
  timeCursor,
  isUniqueViolation,
  keysetPage,
  nameSchema,
  organizationOf,
  pageQuery,
  typed,
} from "../../http/shared.js";
import { SERVER_COLUMNS, serverJson, type ServerRow } from "./server-json.js";

const orgParams = z.strictObject({ org_id: z.uuid() });
const serverParams = z.strictObject({ org_id: z.uuid(), server_id: z.uuid() });
const status = z.enum(["active", "disabled"]);
const url = z.string().min(1).max(MAX_URL_LENGTH);
/** The whole Authorization header value the Gateway sends upstream, e.g. `Bearer ...`. */
const authorization = z
  .string()
  .min(1)
  .max(MAX_AUTHORIZATION_LENGTH)
  .regex(AUTHORIZATION_PATTERN, "a header value on one line");
const createBody = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("mcp"),
    name: nameSchema,
    url,
    authorization: authorization.optional(),
    status: status.default("active"),
  }),
  z.strictObject({ kind: z.literal("decision_only"), name: nameSchema, status: status.default("active") }),
]);
const patchBody = z
  .strictObject({
    name: nameSchema,
    status,
    url,
    authorization: authorization.nullable(),
    server_identity: z.record(z.string(), z.unknown()).nullable(),
  })
  .partial();

const nameTaken = () =>
  new ServiceError("NAME_TAKEN", "another MCP server or integration of this organization has that name");

export async function requireAllowedUrl(text: string, mcp: McpOptions): Promise<void> {
  const check = await checkPublicUrl(text, { allowLoopback: mcp.allowLoopbackUrls, resolve: mcp.resolve });
  if (!check.allowed) {
    // The refused address itself is not told: it would show callers what internal names resolve to.
    throw new ServiceError(
      "URL_NOT_ALLOWED",
      `the MCP server URL is not allowed: ${check.reason.replace(/_/g, " ")}`,
      { reason: check.reason },
    );
  }
}

function credentialKey(mcp: McpOptions): Buffer {
  if (!mcp.credentialKey)
    throw new ServiceError(
      "SERVICE_UNAVAILABLE",
      "credential storage is not configured (COUNTERSIGN_CREDENTIAL_KEY)",
    );
  return mcp.credentialKey;
}

export async function readServer(db: Queryable, orgId: string, id: string, lock = false): Promise<ServerRow> {
  const { rows } = await db.query<ServerRow>(
    `select ${SERVER_COLUMNS} from mcp_servers where id = $1 and organization_id = $2${lock ? " for update" : ""}`,
    [id, orgId],
  );
  if (!rows[0]) throw new ServiceError("NOT_FOUND", "MCP server not found");
  return rows[0];
}

/** The stored Authorization header of a server, for discovery (the Gateway decrypts the same way). */
export function storedAuthorization(s: ServerRow, mcp: McpOptions): string | null {
  if (!s.credential_encrypted) return null;
  const read = decryptMcpCredential(credentialKey(mcp), s.id, s.credential_encrypted);
  if (!read.ok)
    throw new ServiceError(
      "UPSTREAM_CREDENTIAL_INVALID",
      "the stored authorization header cannot be used; set it again",
      { reason: read.reason },
    );
  return read.authorization;
}

/**
 * Lists a server's tools upstream, in one of the discovery slots, refusing
 * a server whose declared identity is not the one registered for it.
 */
export async function discoverServer(ctx: ApiContext, orgId: string, s: ServerRow) {
  if (s.kind === "decision_only")
    throw new ServiceError(
      "CALLER_EXECUTED",
      "a decision-only integration is executed by its caller: there is nothing to discover",
    );
  const mcp = mcpOptionsOf(ctx);
  const auth = storedAuthorization(s, mcp);
  const found = await withDiscoverySlot(ctx.pool, orgId, () =>
    discoverTools({ url: s.url!, authorization: auth }, mcp),
  );
  await checkDeclaredIdentity(ctx.pool, found.declaration, s.server_kid);
  return found;
}

/**
 * What the MCP server declares at the URL and with the credential a change
 * leaves, when the change leaves it with an identity (one registered now, or
 * a new address for one registered before); null when there is nothing to check.
 */
async function declarationAfterPatch(
  ctx: ApiContext,
  orgId: string,
  s: ServerRow,
  b: { url?: string; authorization?: string | null; server_identity?: unknown },
): Promise<{ seen: ServerRow; declared: unknown } | null> {
  if (s.kind !== "mcp" || b.server_identity === null) return null;
  const addressChanged = b.url !== undefined || b.authorization !== undefined;
  if (b.server_identity === undefined && !(addressChanged && s.server_kid !== null)) return null;
  const mcp = mcpOptionsOf(ctx);
  const authorization = b.authorization === undefined ? storedAuthorization(s, mcp) : b.authorization;
  const declared = await withDiscoverySlot(ctx.pool, orgId, () =>
    readDeclaration({ url: b.url ?? s.url!, authorization }, mcp),
  );
  return { seen: s, declared };
}

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
    {
      schema: {
        params: orgParams,
        querystring: z.strictObject({ ...pageQuery, kind: z.enum(["mcp", "decision_only"]).optional() }),
      },
    },
    async (request) => {
      const o = organizationOf(request);
      const { limit, cursor, kind } = request.query;
      const after = decodeCursor(cursor, timeCursor);
      const { rows } = await ctx.pool.query<ServerRow>(
        `select ${SERVER_COLUMNS} from mcp_servers where organization_id = $1 and ($2::text is null or kind = $2)
         and ($3::timestamptz is null or (created_at, id) < ($3::timestamptz, $4::uuid))
       order by created_at desc, id desc limit $5`,
        [o.id, kind ?? null, after?.[0] ?? null, after?.[1] ?? null, limit + 1],
      );
      return keysetPage(rows, limit, serverJson, (last) => [last.created_at.toISOString(), last.id]);
    },
  );

  r.get(
    "/orgs/:org_id/mcp-servers/:server_id",
    { schema: { params: serverParams, querystring: z.strictObject({}) } },
    async (request) => {
      const o = organizationOf(request);
      return { mcp_server: serverJson(await readServer(ctx.pool, o.id, request.params.server_id)) };
    },
  );

  r.post(
    "/orgs/:org_id/mcp-servers",
    { schema: { params: orgParams, body: createBody } },
    async (request, reply) => {
      const o = organizationOf(request);
      const b = request.body;
      if (b.kind === "mcp") await requireAllowedUrl(b.url, mcp);
      const key = b.kind === "mcp" && b.authorization !== undefined ? credentialKey(mcp) : undefined;
      const created = await inTransaction(ctx.pool, async (db) => {
        await db.query("select 1 from organizations where id = $1 for update", [o.id]);
        const { rows: n } = await db.query<{ n: number }>(
          "select count(*)::int as n from mcp_servers where organization_id = $1",
          [o.id],
        );
        checkQuota(o.plan, "mcpServers", n[0]!.n);
        let id: string;
        try {
          const { rows } = await db.query<{ id: string }>(
            "insert into mcp_servers (organization_id, name, kind, url, status) values ($1, $2, $3, $4, $5) returning id",
            [o.id, b.name, b.kind, b.kind === "mcp" ? b.url : null, b.status],
          );
          id = rows[0]!.id;
        } catch (err) {
          if (isUniqueViolation(err)) throw nameTaken();
          throw err;
        }
        if (key && b.kind === "mcp" && b.authorization !== undefined) {
          await db.query(
            "update mcp_servers set credential_encrypted = $2, credential_version = 1 where id = $1",
            [id, encryptMcpCredential(key, id, b.authorization)],
          );
        }
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
    { schema: { params: serverParams, body: patchBody } },
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
        const { rows: tools } = await db.query<{
          id: string;
          enabled: boolean;
          upstream_name: string;
          input_schema: unknown;
          amount_mapping: unknown;
          binding: unknown;
        }>(
          "select id, enabled, upstream_name, input_schema, amount_mapping, binding from tools where mcp_server_id = $1 for update",
          [s.id],
        );
        const rebound = tools
          .map((t) => ({ t, binding: toolBinding(next, t) }))
          .filter(({ t, binding }) => !sameBinding(t.binding, binding));
        if (rebound.some(({ t }) => t.enabled))
          requireAdminSignedIn(request, "changing what an enabled tool is bound to");
        try {
          await db.query(
            `update mcp_servers set name = $2, status = $3, url = $4, credential_encrypted = $5, credential_version = $6, server_kid = $7, updated_at = now() where id = $1`,
            [
              s.id,
              b.name ?? s.name,
              b.status ?? s.status,
              next.url,
              next.credential_encrypted,
              next.credential_version,
              next.server_kid,
            ],
          );
        } catch (err) {
          if (isUniqueViolation(err)) throw nameTaken();
          throw err;
        }
        for (const { t, binding } of rebound)
          await db.query("update tools set binding = $2, updated_at = now() where id = $1", [
            t.id,
            JSON.stringify(binding),
          ]);
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
    { schema: { params: serverParams } },
    async (request, reply) => {
      const o = organizationOf(request);
      await inTransaction(ctx.pool, async (db) => {
        const s = await readServer(db, o.id, request.params.server_id, true);
        const { rowCount } = await db.query(
          "select 1 from protected_actions pa join tools t on t.id = pa.tool_id where t.mcp_server_id = $1 limit 1",
          [s.id],
        );
        if (rowCount)
          throw new ServiceError(
            "IN_USE",
            "tools of this MCP server have recorded actions; disable it instead",
          );
        await db.query("delete from mcp_servers where id = $1", [s.id]);
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
    { schema: { params: serverParams } },
    async (request) => {
      const o = organizationOf(request);
      const s = await readServer(ctx.pool, o.id, request.params.server_id);
      const found = await discoverServer(ctx, o.id, s);
      const { rows: existing } = await ctx.pool.query<{ id: string; upstream_name: string }>(
        "select id, upstream_name from tools where mcp_server_id = $1",
        [s.id],
      );
      const byName = new Map(existing.map((t) => [t.upstream_name, t.id]));
      return {
        tools: found.tools.map((t) => ({
          name: t.name,
          description: t.description,
          input_schema: t.input_schema,
          schema_valid: t.schema_problem === null,
          schema_problem: t.schema_problem,
          tool_id: byName.get(t.name) ?? null,
        })),
        pages: found.pages,
        bytes: found.bytes,
      };
    },
  );
}

/** A valid first document of this MCP server's identity (actor type mcp_server, subject this server), or why not. */
function checkServerIdentityDocument(orgId: string, serverId: string, document: unknown) {
  const v = verifyIdentityDocument(document);
  if (!v.ok) throw new ServiceError("IDENTITY_INVALID", v.message);
  const d = v.document;
  if (d.body.actor_type !== "mcp_server")
    throw new ServiceError(
      "IDENTITY_WRONG_ACTOR_TYPE",
      `an MCP server identity has actor_type mcp_server, not ${d.body.actor_type}`,
    );
  if (d.body.subject.organization_id !== orgId || d.body.subject.id !== serverId)
    throw new ServiceError("IDENTITY_INVALID", "the document's subject is not this MCP server");
  if (d.body.seq !== 0 || d.body.status !== "active")
    throw new ServiceError(
      "IDENTITY_INVALID",
      "an MCP server identity is registered with its first document (seq 0, active)",
    );
  return d;
}

/** An MCP server's identity: stored with the other identities; answers its KID. */
async function registerServerIdentity(
  db: Queryable,
  orgId: string,
  serverId: string,
  document: unknown,
): Promise<string> {
  const d = checkServerIdentityDocument(orgId, serverId, document);
  const { rows } = await db.query<{ kind: string; organization_id: string | null }>(
    "select kind, organization_id from identities where kid = $1",
    [d.body.kid],
  );
  if (rows[0] && (rows[0].kind !== "mcp_server" || rows[0].organization_id !== orgId))
    throw new ServiceError("IDENTITY_ALREADY_BOUND", "this key is already another identity");
  if (!rows[0]) {
    await db.query(
      "insert into identities (kid, kind, organization_id, public_key, document) values ($1, 'mcp_server', $2, $3, $4)",
      [d.body.kid, orgId, d.body.public_key, JSON.stringify([d])],
    );
  }
  return d.body.kid;
}
