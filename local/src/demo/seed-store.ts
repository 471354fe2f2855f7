/**
 * The demo's rows (seed.ts decides what they are): written straight to the database inside the
 * seed's transaction, as an installation's own setup, not through the Cloud API.
 */
import type { IdentityDocument, SignedObject } from "@countersign/protocol/evidence";
import type { Queryable } from "@countersign/core/store";

/** The demo owner, e-mail verified; its id. */
export async function insertOwner(db: Queryable, email: string, passwordHash: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    "insert into users (email, email_verified_at, password_hash, name) values ($1, now(), $2, 'Demo owner') returning id",
    [email, passwordHash],
  );
  return rows[0]!.id;
}

/** The demo organization (enterprise plan) with its owner; its id. */
export async function insertOrganization(db: Queryable, slug: string, ownerId: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    "insert into organizations (name, slug, plan) values ('Demo', $1, 'enterprise') returning id",
    [slug],
  );
  const orgId = rows[0]!.id;
  await db.query("insert into memberships (organization_id, user_id, role) values ($1, $2, 'owner')", [
    orgId,
    ownerId,
  ]);
  return orgId;
}

export async function insertAgent(db: Queryable, orgId: string, name: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    "insert into agents (organization_id, name) values ($1, $2) returning id",
    [orgId, name],
  );
  return rows[0]!.id;
}

export async function insertMcpServer(
  db: Queryable,
  orgId: string,
  name: string,
  kind: "mcp" | "decision_only",
  url: string | null,
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    "insert into mcp_servers (organization_id, name, kind, url) values ($1, $2, $3, $4) returning id",
    [orgId, name, kind, url],
  );
  return rows[0]!.id;
}

/** A tool enabled and authorized as bound (`binding` is its pin, JSON text). */
export async function insertAuthorizedTool(
  db: Queryable,
  t: {
    orgId: string;
    serverId: string;
    name: string;
    description: string;
    inputSchema: string | null;
    mapping: string;
    binding: string;
  },
): Promise<void> {
  await db.query(
    `insert into tools (organization_id, mcp_server_id, exposed_name, upstream_name, action, description, input_schema, amount_mapping, enabled, binding, authorized_binding)
     values ($1, $2, $3, $3, 'payments.refund', $4, $5, $6, true, $7, $7)`,
    [t.orgId, t.serverId, t.name, t.description, t.inputSchema, t.mapping, t.binding],
  );
}

/** A policy with its first version active, assigned to the agent. */
export async function insertActivePolicy(
  db: Queryable,
  p: { orgId: string; agentId: string; name: string; text: string; digest: string; languageRevision: number },
): Promise<void> {
  const policy = await db.query<{ id: string }>(
    "insert into policies (organization_id, name) values ($1, $2) returning id",
    [p.orgId, p.name],
  );
  const policyId = policy.rows[0]!.id;
  const version = await db.query<{ id: string }>(
    `insert into policy_versions (policy_id, organization_id, number, document, document_size, digest, language_revision, status, activated_at)
     values ($1, $2, 1, $3, $4, $5, $6, 'active', now()) returning id`,
    [policyId, p.orgId, p.text, Buffer.byteLength(p.text), p.digest, p.languageRevision],
  );
  await db.query("update policies set active_version_id = $2 where id = $1", [policyId, version.rows[0]!.id]);
  await db.query("update agents set policy_id = $2 where id = $1", [p.agentId, policyId]);
}

export async function insertDelegation(
  db: Queryable,
  orgId: string,
  agentId: string,
  object: SignedObject,
  permissions: string[],
  expiresAt: Date,
): Promise<void> {
  await db.query(
    "insert into delegations (organization_id, agent_id, object_id, object, permissions, expires_at) values ($1, $2, $3, $4, $5, $6)",
    [orgId, agentId, object.id, JSON.stringify(object), permissions, expiresAt],
  );
}

/** Whether the organization a demo file names is still in the database. */
export async function organizationExists(db: Queryable, orgId: string): Promise<boolean> {
  const { rows } = await db.query("select 1 from organizations where id = $1", [orgId]);
  return rows.length === 1;
}

/** A service-aware MCP server's identity, as the Cloud API stores one (kept if already there). */
export async function insertServerIdentity(
  db: Queryable,
  orgId: string,
  identity: IdentityDocument,
): Promise<void> {
  await db.query(
    "insert into identities (kid, kind, organization_id, public_key, document) values ($1, 'mcp_server', $2, $3, $4) on conflict (kid) do nothing",
    [identity.body.kid, orgId, identity.body.public_key, JSON.stringify([identity])],
  );
}

/** The MCP server at its address of this run, with its identity, and its tools pinned (and authorized) to it. */
export async function pinMcpServer(
  db: Queryable,
  serverId: string,
  url: string,
  serverKid: string,
  binding: string,
): Promise<void> {
  await db.query("update mcp_servers set url = $2, server_kid = $3 where id = $1", [
    serverId,
    url,
    serverKid,
  ]);
  await db.query("update tools set binding = $2, authorized_binding = $2 where mcp_server_id = $1", [
    serverId,
    binding,
  ]);
}
