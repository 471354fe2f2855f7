import { ServiceError } from "@countersign/protocol/errors";
import {
  compilePolicy,
  parsePolicy,
  type CompiledPolicy,
  type LintTool,
  type MapTool,
  type PolicyDocument,
  type PolicyExample,
} from "@countersign/protocol/policy";
import type { Queryable } from "@countersign/core/store";
import type { VersionOrigin } from "./versions.js";
import type { Policy, PolicyVersion } from "@countersign/protocol/wire";
import { lockOrganization } from "../orgs/store.js";

/**
 * Policy and version rows as the rollout code reads them, and their JSON
 * shapes (SPEC 2.4). Versions are never deleted and their documents never
 * change, so a compiled document is cached by version id.
 */
export interface PolicyRow {
  id: string;
  organization_id: string;
  name: string;
  agent_disclosure: "inherit" | "none" | "rule" | "conditions";
  active_version_id: string | null;
  shadow_version_id: string | null;
  emergency_stopped_at: Date | null;
  examples: PolicyExample[];
  created_at: Date;
}

export interface VersionRow {
  id: string;
  policy_id: string;
  number: number;
  document: PolicyDocument;
  document_size: number;
  digest: string;
  language_revision: 1 | 2;
  status: "draft" | "active" | "superseded";
  note: string | null;
  origin: VersionOrigin;
  source_version_id: string | null;
  created_at: Date;
  activated_at: Date | null;
  superseded_at: Date | null;
}

export const POLICY_COLUMNS =
  "id, organization_id, name, agent_disclosure, active_version_id, shadow_version_id, emergency_stopped_at, examples, created_at";
export const VERSION_COLUMNS =
  "id, policy_id, number, document, document_size, digest, language_revision, status, note, origin, source_version_id, created_at, activated_at, superseded_at";

/** The policy of this organization, or 404 NOT_FOUND; `lock` takes it FOR UPDATE (every rollout change does). */
export async function loadPolicy(
  db: Queryable,
  organizationId: string,
  policyId: string,
  lock = false,
): Promise<PolicyRow> {
  const { rows } = await db.query<PolicyRow>(
    `select ${POLICY_COLUMNS} from policies where id = $1 and organization_id = $2${lock ? " for update" : ""}`,
    [policyId, organizationId],
  );
  if (!rows[0]) throw new ServiceError("NOT_FOUND", "policy not found");
  return rows[0];
}

export async function loadVersion(
  db: Queryable,
  policyId: string,
  versionId: string,
  lock = false,
): Promise<VersionRow> {
  const { rows } = await db.query<VersionRow>(
    `select ${VERSION_COLUMNS} from policy_versions where id = $1 and policy_id = $2${lock ? " for update" : ""}`,
    [versionId, policyId],
  );
  if (!rows[0]) throw new ServiceError("NOT_FOUND", "policy version not found");
  return rows[0];
}

/** A version named in a body (not the path): a missing one is 422 POLICY_NOT_FOUND (SPEC 7.1). */
export async function namedVersion(
  db: Queryable,
  policyId: string,
  versionId: string,
  member: string,
): Promise<VersionRow> {
  const { rows } = await db.query<VersionRow>(
    `select ${VERSION_COLUMNS} from policy_versions where id = $1 and policy_id = $2`,
    [versionId, policyId],
  );
  if (!rows[0]) {
    throw new ServiceError("POLICY_NOT_FOUND", `${member} names no version of this policy`, {
      issues: [{ path: member, code: "not_found", message: "no such version of this policy" }],
    });
  }
  return rows[0];
}

/**
 * The stored document compiled. A stored document that no longer validates
 * (limits tightened since it was saved) throws 422 POLICY_INVALID. Not
 * cached: these routes compile a few documents per request, in milliseconds,
 * and every request re-checks the stored document against today's rules.
 */
export function compiledVersion(v: Pick<VersionRow, "id" | "document">): CompiledPolicy {
  return compilePolicy(parsePolicy(v.document));
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** A version as the API shows it (SPEC 2.4); `document` only when asked. */
export function versionJson(v: VersionRow, withDocument = false): PolicyVersion {
  return {
    id: v.id,
    policy_id: v.policy_id,
    number: v.number,
    digest: v.digest,
    status: v.status,
    note: v.note,
    language_revision: v.language_revision,
    origin: v.origin,
    source_version_id: v.source_version_id,
    document_size: v.document_size,
    created_at: v.created_at.toISOString(),
    activated_at: iso(v.activated_at),
    superseded_at: iso(v.superseded_at),
    ...(withDocument ? { document: v.document } : {}),
  };
}

export function policyJson(
  p: PolicyRow,
  versions?: { active: VersionRow | null; shadow: VersionRow | null },
): Policy {
  const brief = (v: VersionRow | null | undefined) =>
    v ? { id: v.id, number: v.number, digest: v.digest, language_revision: v.language_revision } : null;
  return {
    id: p.id,
    name: p.name,
    agent_disclosure: p.agent_disclosure,
    active_version_id: p.active_version_id,
    shadow_version_id: p.shadow_version_id,
    ...(versions ? { active_version: brief(versions.active), shadow_version: brief(versions.shadow) } : {}),
    emergency_stopped_at: iso(p.emergency_stopped_at),
    examples_count: p.examples.length,
    created_at: p.created_at.toISOString(),
  };
}

/** Versions by id (active, shadow, ...) in one query. */
export async function versionsById(db: Queryable, ids: (string | null)[]): Promise<Map<string, VersionRow>> {
  const wanted = ids.filter((x): x is string => !!x);
  if (!wanted.length) return new Map();
  const { rows } = await db.query<VersionRow>(
    `select ${VERSION_COLUMNS} from policy_versions where id = any($1)`,
    [wanted],
  );
  return new Map(rows.map((r) => [r.id, r]));
}

/** The newest draft of each of the organization's policies, by policy id. */
export async function newestDrafts(db: Queryable, organizationId: string): Promise<Map<string, VersionRow>> {
  const { rows } = await db.query<VersionRow>(
    `select distinct on (v.policy_id) ${VERSION_COLUMNS.split(", ")
      .map((c) => `v.${c}`)
      .join(", ")}
       from policy_versions v join policies p on p.id = v.policy_id
      where p.organization_id = $1 and v.status = 'draft'
      order by v.policy_id, v.number desc`,
    [organizationId],
  );
  return new Map(rows.map((r) => [r.policy_id, r]));
}

/** Enabled members of the organization holding one of the roles, with or without a personal key. */
export async function membersWithRoles(
  db: Queryable,
  organizationId: string,
  roles: readonly string[],
): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `select count(*)::int as n from memberships m
       join users u on u.id = m.user_id and u.disabled_at is null and u.deleted_at is null
      where m.organization_id = $1 and m.role = any($2::text[])`,
    [organizationId, roles],
  );
  return rows[0]!.n;
}

/** A page of the organization's policies by name, after the `[name, id]` cursor. */
export async function listPolicies(
  db: Queryable,
  organizationId: string,
  q: { after?: [string, string]; limit: number },
): Promise<PolicyRow[]> {
  const { rows } = await db.query<PolicyRow>(
    `select ${POLICY_COLUMNS} from policies where organization_id = $1
       and ($2::text is null or (name, id) > ($2::text, $3::uuid)) order by name, id limit $4`,
    [organizationId, q.after?.[0] ?? null, q.after?.[1] ?? null, q.limit],
  );
  return rows;
}

/** Every policy of the organization, by name. */
export async function allPolicies(db: Queryable, organizationId: string): Promise<PolicyRow[]> {
  const { rows } = await db.query<PolicyRow>(
    `select ${POLICY_COLUMNS} from policies where organization_id = $1 order by name, id`,
    [organizationId],
  );
  return rows;
}

/** Every version of a policy, newest first. */
export async function versionsOf(db: Queryable, policyId: string): Promise<VersionRow[]> {
  const { rows } = await db.query<VersionRow>(
    `select ${VERSION_COLUMNS} from policy_versions where policy_id = $1 order by number desc`,
    [policyId],
  );
  return rows;
}

/** Locks the organization (so its plan limit is exact) and counts its policies. */
export async function lockAndCountPolicies(db: Queryable, organizationId: string): Promise<number> {
  await lockOrganization(db, organizationId);
  const { rows } = await db.query<{ n: string }>(
    "select count(*) as n from policies where organization_id = $1",
    [organizationId],
  );
  return Number(rows[0]!.n);
}

/** A new policy without versions; a taken name is the caller's to answer (unique violation). */
export async function insertPolicy(
  db: Queryable,
  organizationId: string,
  name: string,
  disclosure: string,
): Promise<PolicyRow> {
  const { rows } = await db.query<PolicyRow>(
    `insert into policies (organization_id, name, agent_disclosure) values ($1, $2, $3) returning ${POLICY_COLUMNS}`,
    [organizationId, name, disclosure],
  );
  return rows[0]!;
}

/** The disclosure setting is not part of any document: it creates no version (SPEC 2.4). */
export async function setDisclosure(db: Queryable, policyId: string, disclosure: string): Promise<void> {
  await db.query("update policies set agent_disclosure = $2 where id = $1", [policyId, disclosure]);
}

/** The emergency stop's mark: every Gateway denies the policy's calls from this change on. */
export async function setEmergencyStop(db: Queryable, policyId: string, at: Date): Promise<void> {
  await db.query("update policies set emergency_stopped_at = $2 where id = $1", [policyId, at]);
}

/** The version superseded last, the one a rollback without `to_version_id` restores. */
export async function lastSuperseded(db: Queryable, policyId: string): Promise<VersionRow | undefined> {
  const { rows } = await db.query<VersionRow>(
    `select ${VERSION_COLUMNS} from policy_versions where policy_id = $1 and status = 'superseded' order by activated_at desc nulls last, number desc limit 1`,
    [policyId],
  );
  return rows[0];
}

export async function setShadowVersion(
  db: Queryable,
  policyId: string,
  versionId: string | null,
): Promise<void> {
  await db.query("update policies set shadow_version_id = $2 where id = $1", [policyId, versionId]);
}

export async function setExamples(db: Queryable, policyId: string, examples: unknown[]): Promise<void> {
  await db.query("update policies set examples = $2, examples_updated_at = now() where id = $1", [
    policyId,
    JSON.stringify(examples),
  ]);
}

/** The organization's tools as the decision map sees them. */
export async function mapTools(db: Queryable, organizationId: string): Promise<MapTool[]> {
  const { rows } = await db.query<{
    exposed_name: string;
    action: string;
    amount_mapping: { currency?: string } | null;
  }>(
    "select exposed_name, action, amount_mapping from tools where organization_id = $1 order by exposed_name",
    [organizationId],
  );
  return rows.map((t) => ({
    tool: t.exposed_name,
    action: t.action,
    amount: t.amount_mapping ? { currency: t.amount_mapping.currency ?? null } : null,
  }));
}

/** The organization's tools as lint sees them (more warnings with them, docs/policy-language.md 3). */
export async function lintTools(db: Queryable, organizationId: string): Promise<LintTool[]> {
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
