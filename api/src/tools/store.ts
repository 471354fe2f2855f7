import { ServiceError } from "@countersign/protocol/errors";
import type { AmountMapping, Tool, ToolDeclaration } from "@countersign/protocol/wire";
import type { Queryable } from "@countersign/core/store";
import { isUniqueViolation } from "../http/shared.js";
import { bindingDigest, sameBinding, type Binding } from "./binding.js";
import { lockOrganization } from "../orgs/store.js";

export interface ToolRow {
  id: string;
  mcp_server_id: string;
  exposed_name: string;
  upstream_name: string;
  action: string;
  description: string | null;
  input_schema: unknown;
  amount_mapping: unknown;
  declaration: ToolDeclaration | null;
  enabled: boolean;
  binding: Record<string, unknown>;
  authorized_binding: Record<string, unknown> | null;
  authorized_at: Date | null;
  authorized_by: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, mcp_server_id, exposed_name, upstream_name, action, description, input_schema, amount_mapping, declaration, enabled, binding,
  authorized_binding, authorized_at, authorized_by, created_at, updated_at`;

/**
 * Authorization state of a tool's binding: `authorized` (the Gateway uses
 * it), `reauthorization_required` (authorized once, bound to something else
 * since: the Gateway refuses TOOL_REAUTHORIZATION_REQUIRED), `unauthorized` (a draft never authorized).
 */
export function authorizationState(t: Pick<ToolRow, "binding" | "authorized_binding">) {
  if (!t.authorized_binding) return "unauthorized";
  return sameBinding(t.binding, t.authorized_binding) ? "authorized" : "reauthorization_required";
}

/** The tool record of SPEC 2.3. */
export function toolJson(t: ToolRow): Tool {
  return {
    id: t.id,
    mcp_server_id: t.mcp_server_id,
    exposed_name: t.exposed_name,
    upstream_name: t.upstream_name,
    action: t.action,
    description: t.description,
    input_schema: t.input_schema,
    amount_mapping: t.amount_mapping as AmountMapping | null,
    declaration: t.declaration,
    enabled: t.enabled,
    binding: { ...(t.binding as Binding), digest: bindingDigest(t.binding) },
    authorization: {
      state: authorizationState(t),
      binding_digest: t.authorized_binding ? bindingDigest(t.authorized_binding) : null,
      authorized_at: t.authorized_at?.toISOString() ?? null,
      authorized_by: t.authorized_by,
    },
    created_at: t.created_at.toISOString(),
    updated_at: t.updated_at.toISOString(),
  };
}

const nameTaken = () =>
  new ServiceError("NAME_TAKEN", "another tool of this organization is exposed under that name");

export async function readTool(db: Queryable, orgId: string, id: string, lock = false): Promise<ToolRow> {
  const { rows } = await db.query<ToolRow>(
    `select ${COLUMNS} from tools where id = $1 and organization_id = $2${lock ? " for update" : ""}`,
    [id, orgId],
  );
  if (!rows[0]) throw new ServiceError("NOT_FOUND", "tool not found");
  return rows[0];
}

/** A page of the organization's tools, newest first, after the `[created_at, id]` cursor. */
export async function listTools(
  db: Queryable,
  orgId: string,
  q: { serverId?: string; enabled?: boolean; after?: [string, string]; limit: number },
): Promise<ToolRow[]> {
  const { rows } = await db.query<ToolRow>(
    `select ${COLUMNS} from tools where organization_id = $1 and ($2::uuid is null or mcp_server_id = $2) and ($3::boolean is null or enabled = $3)
       and ($4::timestamptz is null or (created_at, id) < ($4::timestamptz, $5::uuid))
     order by created_at desc, id desc limit $6`,
    [orgId, q.serverId ?? null, q.enabled ?? null, q.after?.[0] ?? null, q.after?.[1] ?? null, q.limit],
  );
  return rows;
}

/** Locks the organization (so its plan limit is exact) and counts its tools. */
export async function lockAndCountTools(db: Queryable, orgId: string): Promise<number> {
  await lockOrganization(db, orgId);
  const { rows } = await db.query<{ n: number }>(
    "select count(*)::int as n from tools where organization_id = $1",
    [orgId],
  );
  return rows[0]!.n;
}

export interface ToolFields {
  exposed_name: string;
  upstream_name: string;
  action: string;
  description: string | null;
  input_schema: unknown;
  amount_mapping: unknown;
  /** What the server declared of the upstream tool at the discovery that read it (null: none did). */
  declaration: ToolDeclaration | null;
  enabled: boolean;
}

/** A new tool; an enabled one is authorized for its binding at once, by `by`. */
export async function insertTool(
  db: Queryable,
  orgId: string,
  serverId: string,
  t: ToolFields,
  binding: Binding,
  by: string | null,
): Promise<string> {
  try {
    const { rows } = await db.query<{ id: string }>(
      `insert into tools (organization_id, mcp_server_id, exposed_name, upstream_name, action, description, input_schema, amount_mapping, enabled, binding,
                          authorized_binding, authorized_at, authorized_by, declaration)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, case when $9 then $10::jsonb end, case when $9 then now() end, case when $9 then $11::uuid end, $12) returning id`,
      [
        orgId,
        serverId,
        t.exposed_name,
        t.upstream_name,
        t.action,
        t.description,
        JSON.stringify(t.input_schema),
        t.amount_mapping ? JSON.stringify(t.amount_mapping) : null,
        t.enabled,
        JSON.stringify(binding),
        by,
        t.declaration ? JSON.stringify(t.declaration) : null,
      ],
    );
    return rows[0]!.id;
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken();
    throw err;
  }
}

/** Writes a tool's fields and binding; `authorizedNow` records `by` authorizing `authorized` now. */
export async function updateTool(
  db: Queryable,
  id: string,
  t: ToolFields,
  binding: Binding,
  authorized: unknown,
  authorizedNow: boolean,
  by: string | null,
): Promise<void> {
  try {
    await db.query(
      `update tools set exposed_name = $2, upstream_name = $3, action = $4, description = $5, input_schema = $6, amount_mapping = $7, enabled = $8, binding = $9,
              authorized_binding = $10, authorized_at = case when $11 then now() else authorized_at end, authorized_by = case when $11 then $12::uuid else authorized_by end,
              declaration = $13, updated_at = now()
        where id = $1`,
      [
        id,
        t.exposed_name,
        t.upstream_name,
        t.action,
        t.description,
        JSON.stringify(t.input_schema),
        t.amount_mapping == null ? null : JSON.stringify(t.amount_mapping),
        t.enabled,
        JSON.stringify(binding),
        authorized ? JSON.stringify(authorized) : null,
        authorizedNow,
        by,
        t.declaration ? JSON.stringify(t.declaration) : null,
      ],
    );
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken();
    throw err;
  }
}

/** Authorizes what the tool is bound to now, by `by`. */
export async function authorizeBinding(db: Queryable, id: string, by: string | null): Promise<void> {
  await db.query(
    "update tools set authorized_binding = binding, authorized_at = now(), authorized_by = $2, updated_at = now() where id = $1",
    [id, by],
  );
}

/** A server's tools, locked: a discovery records what the server declares of them now. */
export async function lockServerToolDeclarations(db: Queryable, serverId: string) {
  const { rows } = await db.query<
    Pick<
      ToolRow,
      | "id"
      | "upstream_name"
      | "input_schema"
      | "amount_mapping"
      | "declaration"
      | "binding"
      | "authorized_binding"
    >
  >(
    `select id, upstream_name, input_schema, amount_mapping, declaration, binding, authorized_binding from tools
      where mcp_server_id = $1 order by id for update`,
    [serverId],
  );
  return rows;
}

/**
 * Records a tool's declaration as a discovery read it, with the binding it
 * gives; `carryAuthorization` moves the standing authorization to that binding
 * (a first declaration of a tool authorized before declarations were kept).
 */
export async function setToolDeclaration(
  db: Queryable,
  id: string,
  declaration: ToolDeclaration | null,
  binding: Binding,
  carryAuthorization = false,
): Promise<void> {
  await db.query(
    `update tools set declaration = $2, binding = $3, updated_at = now(),
            authorized_binding = case when $4 then $3 else authorized_binding end
      where id = $1`,
    [id, declaration ? JSON.stringify(declaration) : null, JSON.stringify(binding), carryAuthorization],
  );
}
