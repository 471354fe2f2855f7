import { ServiceError } from "@countersign/protocol/errors";
import type { McpServer } from "@countersign/protocol/wire";
import type { Queryable } from "@countersign/core/store";
import { isUniqueViolation } from "../http/shared.js";
import { lockOrganization } from "../orgs/store.js";

export interface ServerRow {
  id: string;
  organization_id: string;
  name: string;
  kind: "mcp" | "decision_only";
  url: string | null;
  credential_encrypted: Buffer | null;
  credential_version: number;
  server_kid: string | null;
  status: "active" | "disabled";
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  "id, organization_id, name, kind, url, credential_encrypted, credential_version, server_kid, status, created_at, updated_at";

/** The MCP server record of SPEC 2.3: the credential is never returned, only whether one is set and its version. */
export function serverJson(s: ServerRow): McpServer {
  return {
    id: s.id,
    kind: s.kind,
    name: s.name,
    status: s.status,
    url: s.url,
    credential:
      s.kind === "mcp"
        ? { configured: s.credential_encrypted !== null, version: s.credential_version }
        : null,
    server_kid: s.server_kid,
    created_at: s.created_at.toISOString(),
    updated_at: s.updated_at.toISOString(),
  };
}

const nameTaken = () =>
  new ServiceError("NAME_TAKEN", "another MCP server or integration of this organization has that name");

export async function readServer(db: Queryable, orgId: string, id: string, lock = false): Promise<ServerRow> {
  const { rows } = await db.query<ServerRow>(
    `select ${COLUMNS} from mcp_servers where id = $1 and organization_id = $2${lock ? " for update" : ""}`,
    [id, orgId],
  );
  if (!rows[0]) throw new ServiceError("NOT_FOUND", "MCP server not found");
  return rows[0];
}

/** A page of the organization's servers, newest first, after the `[created_at, id]` cursor. */
export async function listServers(
  db: Queryable,
  orgId: string,
  q: { kind?: string; after?: [string, string]; limit: number },
): Promise<ServerRow[]> {
  const { rows } = await db.query<ServerRow>(
    `select ${COLUMNS} from mcp_servers where organization_id = $1 and ($2::text is null or kind = $2)
       and ($3::timestamptz is null or (created_at, id) < ($3::timestamptz, $4::uuid))
     order by created_at desc, id desc limit $5`,
    [orgId, q.kind ?? null, q.after?.[0] ?? null, q.after?.[1] ?? null, q.limit],
  );
  return rows;
}

/** Locks the organization (so its plan limit is exact) and counts its servers. */
export async function lockAndCountServers(db: Queryable, orgId: string): Promise<number> {
  await lockOrganization(db, orgId);
  const { rows } = await db.query<{ n: number }>(
    "select count(*)::int as n from mcp_servers where organization_id = $1",
    [orgId],
  );
  return rows[0]!.n;
}

export async function insertServer(
  db: Queryable,
  orgId: string,
  s: { name: string; kind: string; url: string | null; status: string },
): Promise<string> {
  try {
    const { rows } = await db.query<{ id: string }>(
      "insert into mcp_servers (organization_id, name, kind, url, status) values ($1, $2, $3, $4, $5) returning id",
      [orgId, s.name, s.kind, s.url, s.status],
    );
    return rows[0]!.id;
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken();
    throw err;
  }
}

/** The first credential of a server just created (it is encrypted with the server's id). */
export async function setFirstCredential(db: Queryable, id: string, encrypted: Buffer): Promise<void> {
  await db.query("update mcp_servers set credential_encrypted = $2, credential_version = 1 where id = $1", [
    id,
    encrypted,
  ]);
}

export async function updateServer(
  db: Queryable,
  s: Pick<
    ServerRow,
    "id" | "name" | "status" | "url" | "credential_encrypted" | "credential_version" | "server_kid"
  >,
): Promise<void> {
  try {
    await db.query(
      `update mcp_servers set name = $2, status = $3, url = $4, credential_encrypted = $5, credential_version = $6, server_kid = $7, updated_at = now() where id = $1`,
      [s.id, s.name, s.status, s.url, s.credential_encrypted, s.credential_version, s.server_kid],
    );
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken();
    throw err;
  }
}

/** A server's tools as their binding needs them, locked while the server changes. */
export async function lockServerTools(db: Queryable, serverId: string) {
  const { rows } = await db.query<{
    id: string;
    enabled: boolean;
    upstream_name: string;
    input_schema: unknown;
    amount_mapping: unknown;
    declaration: unknown;
    binding: unknown;
  }>(
    "select id, enabled, upstream_name, input_schema, amount_mapping, declaration, binding from tools where mcp_server_id = $1 for update",
    [serverId],
  );
  return rows;
}

export async function setToolBinding(db: Queryable, toolId: string, binding: unknown): Promise<void> {
  await db.query("update tools set binding = $2, updated_at = now() where id = $1", [
    toolId,
    JSON.stringify(binding),
  ]);
}

/** Whether any tool of the server has a recorded action (the server then cannot be deleted). */
export async function hasRecordedActions(db: Queryable, serverId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    "select 1 from protected_actions pa join tools t on t.id = pa.tool_id where t.mcp_server_id = $1 limit 1",
    [serverId],
  );
  return Boolean(rowCount);
}

export async function deleteServer(db: Queryable, serverId: string): Promise<void> {
  await db.query("delete from mcp_servers where id = $1", [serverId]);
}

/** The configured tools of a server by upstream name. */
export async function toolIdsByUpstreamName(db: Queryable, serverId: string): Promise<Map<string, string>> {
  const { rows } = await db.query<{ id: string; upstream_name: string }>(
    "select id, upstream_name from tools where mcp_server_id = $1",
    [serverId],
  );
  return new Map(rows.map((t) => [t.upstream_name, t.id]));
}

/** Who holds a key already: its identity kind and organization, if it is one. */
export async function identityOwner(db: Queryable, kid: string) {
  const { rows } = await db.query<{ kind: string; organization_id: string | null }>(
    "select kind, organization_id from identities where kid = $1",
    [kid],
  );
  return rows[0];
}

export async function insertServerIdentity(
  db: Queryable,
  orgId: string,
  d: { body: { kid: string; public_key: string } },
): Promise<void> {
  await db.query(
    "insert into identities (kid, kind, organization_id, public_key, document) values ($1, 'mcp_server', $2, $3, $4)",
    [d.body.kid, orgId, d.body.public_key, JSON.stringify([d])],
  );
}
