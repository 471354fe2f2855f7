import { ServiceError } from "@countersign/protocol/errors";
import {
  compilePolicy,
  parsePolicy,
  type CompiledPolicy,
  type PolicyDocument,
  type PolicyExample,
} from "@countersign/protocol/policy";
import type { Queryable } from "@countersign/core/store";
import type { PolicyRecord, PolicyVersion } from "@countersign/protocol/wire";

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
  origin: string;
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
): PolicyRecord {
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
