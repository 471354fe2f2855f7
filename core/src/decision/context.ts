import type { IdentityDocument, SignedObject } from "@countersign/protocol/evidence";
import { holdsIdempotencyKey } from "../actions/reopened-keys.js";
import { identityLogOf } from "../identities/index.js";
import type { Queryable } from "../store/queryable.js";
import { statement } from "../store/statement.js";
import type { WarmTicket } from "./warm-admission.js";
import { heldParameters, NOTHING_HELD, type ContextCache, type HeldEvidence } from "./context-cache.js";

/**
 * Everything the pipeline needs to decide one call, read in one round trip
 * (../shared/notes/performance.md: round trips cost more than all the
 * cryptography). The policy document itself is not read here: versions never
 * change, so compiled documents are cached by version id (policy-cache.ts).
 */
export interface DecisionContext {
  organization: {
    id: string;
    approvalTtlSeconds: number;
    agentDisclosure: "none" | "rule" | "conditions";
    plan: string;
  };
  agent: { id: string; name: string; status: string; policyId: string | null };
  tool: {
    id: string;
    exposedName: string;
    upstreamName: string;
    action: string;
    serverKind: "mcp" | "decision_only";
    /** The tool is enabled and so is its MCP server or integration. */
    enabled: boolean;
    bindingAuthorized: boolean;
    /** What the tool is bound to now (SPEC 2.3 binding pin); its digest is recorded with the decision. */
    binding: unknown;
    amountMapping: unknown;
    /** The tool's MCP server, for a claim made with the decision (core/src/execution/claim-at-decision.ts). */
    server: {
      id: string;
      url: string;
      /** Set for a service-aware server: such calls are claimed on their own (the server's identity is read then). */
      kid: string | null;
      credentialEncrypted: Buffer | null;
    } | null;
  } | null;
  policy: {
    id: string;
    name: string;
    disclosure: "inherit" | "none" | "rule" | "conditions";
    emergencyStopped: boolean;
    versionId: string | null;
    version: number | null;
    digest: string | null;
  } | null;
  /** The organization's newest principal (as core/src/identities principalOf): an equivocated one is never used. */
  principal: { kid: string; status: string; documents: IdentityDocument[] } | null;
  /** Unrevoked, unexpired delegations of the agent, oldest first. */
  delegations: Array<{
    id: string;
    objectId: string;
    permissions: string[];
    expiresAt: string;
    object: SignedObject;
  }>;
  /** The agent's open observe window, if any (SPEC 3.9). */
  observeWindow: { id: string; endsAt: string; live: boolean } | null;
  /** An action recorded earlier under the call's idempotency key. */
  existingActionId: string | null;
  /**
   * Set when the context comes from this process's warm admissions
   * (warm-admission.ts), not from a read for this call: the decision's write
   * must hold at this ticket's configuration revision and takes its tokens.
   */
  warm?: WarmTicket;
}

/**
 * The context query's text, given what stands for each input: parameters
 * here, columns of the key row where the Gateway reads the key and the
 * context in one statement (admission.ts). Built once per statement at load.
 * The principal's log and the delegations' signed objects come only where
 * the caller does not hold them already (context-cache.ts).
 */
export function contextQuery(p: {
  organizationId: string;
  agentId: string;
  tool: string;
  defaultPlan: string;
  idempotencyKey: string;
  /** The revision of the principal's identity row whose log the caller holds (bigint, or null). */
  heldPrincipalRevision: string;
  /** The ids of the delegations whose signed objects the caller holds (uuid[]). */
  heldDelegations: string;
}): string {
  return `
  select o.approval_ttl_seconds, o.agent_disclosure, coalesce(o.plan, ${p.defaultPlan}) as plan,
         a.id as agent_id, a.name as agent_name, a.status as agent_status, a.policy_id,
         t.id as tool_id, t.exposed_name, t.upstream_name, t.action, t.enabled, t.amount_mapping, t.binding,
         (t.authorized_binding is not null and t.authorized_binding = t.binding) as binding_authorized,
         s.kind as server_kind, s.status as server_status, s.id as server_id, s.url as server_url, s.server_kid,
         s.credential_encrypted,
         p.name as policy_name, p.agent_disclosure as policy_disclosure,
         (p.emergency_stopped_at is not null) as emergency_stopped,
         v.id as version_id, v.number as version, v.digest,
         (select json_build_object('kid', i.kid, 'status', i.status, 'revision', i.revision::text,
                                   'document', case when i.revision = ${p.heldPrincipalRevision} then null else i.document end)
            from identities i
           where i.organization_id = o.id and i.kind = 'principal' and i.status in ('active', 'equivocated')
           order by i.created_at desc, (i.status = 'equivocated') desc limit 1) as principal,
         (select coalesce(json_agg(json_build_object('id', d.id, 'objectId', d.object_id, 'permissions', d.permissions,
                                                     'expiresAt', d.expires_at,
                                                     'object', case when d.id = any(${p.heldDelegations}) then null else d.object end)
                                   order by d.created_at), '[]')
            from delegations d where d.agent_id = a.id and d.revoked_at is null and d.expires_at > now()) as delegations,
         (select json_build_object('id', w.id, 'endsAt', w.ends_at, 'live', w.live) from observe_windows w
           where w.agent_id = a.id and w.ended_at is null and w.ends_at > now()) as observe_window,
         (select pa.id from protected_actions pa where pa.agent_id = a.id and pa.idempotency_key = ${p.idempotencyKey} and ${holdsIdempotencyKey("pa")}) as existing_action_id
    from organizations o
    join agents a on a.id = ${p.agentId} and a.organization_id = o.id
    left join tools t on t.organization_id = o.id and t.exposed_name = ${p.tool}
    left join mcp_servers s on s.id = t.mcp_server_id
    left join policies p on p.id = a.policy_id
    left join policy_versions v on v.id = p.active_version_id
   where o.id = ${p.organizationId}`;
}

const QUERY = statement(
  "decision_context",
  contextQuery({
    organizationId: "$1",
    agentId: "$2",
    tool: "$3",
    defaultPlan: "$4",
    idempotencyKey: "$5",
    heldPrincipalRevision: "$6::bigint",
    heldDelegations: "$7::uuid[]",
  }),
);

export async function loadDecisionContext(
  db: Queryable,
  q: {
    organizationId: string;
    agentId: string;
    tool: string;
    defaultPlan: string;
    idempotencyKey?: string | null;
  },
  cache?: ContextCache,
): Promise<DecisionContext | undefined> {
  const held = cache ? cache.heldFor(q.organizationId, q.agentId) : NOTHING_HELD;
  const { rows } = await db.query(
    QUERY.with([
      q.organizationId,
      q.agentId,
      q.tool,
      q.defaultPlan,
      q.idempotencyKey ?? null,
      ...heldParameters(held),
    ]),
  );
  const r = rows[0];
  return r ? contextOf(q.organizationId, r, held, cache) : undefined;
}

/**
 * A row of the context query as the pipeline reads it, completed with the
 * evidence the statement was told is held (and remembered in the cache).
 */
export function contextOf(
  organizationId: string,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  r: any,
  held: HeldEvidence = NOTHING_HELD,
  cache?: ContextCache,
): DecisionContext {
  const heldPrincipal = held.principal;
  const principal = r.principal
    ? {
        revision: r.principal.revision as string,
        documents:
          heldPrincipal && r.principal.revision === heldPrincipal.revision
            ? heldPrincipal.documents
            : identityLogOf(r.principal.document),
      }
    : null;
  const delegations: DecisionContext["delegations"] = r.delegations.map(
    (d: DecisionContext["delegations"][number]) => {
      const object = held.delegations.get(d.id);
      return object ? { ...d, object } : d;
    },
  );
  cache?.remember(organizationId, r.agent_id, principal, delegations);
  return {
    organization: {
      id: organizationId,
      approvalTtlSeconds: r.approval_ttl_seconds,
      agentDisclosure: r.agent_disclosure,
      plan: r.plan,
    },
    agent: { id: r.agent_id, name: r.agent_name, status: r.agent_status, policyId: r.policy_id },
    tool: r.tool_id
      ? {
          id: r.tool_id,
          exposedName: r.exposed_name,
          upstreamName: r.upstream_name,
          action: r.action,
          serverKind: r.server_kind,
          enabled: r.enabled && r.server_status === "active",
          bindingAuthorized: r.binding_authorized,
          binding: r.binding,
          amountMapping: r.amount_mapping,
          server:
            r.server_id && r.server_kind === "mcp"
              ? {
                  id: r.server_id,
                  url: r.server_url,
                  kid: r.server_kid,
                  credentialEncrypted: bytesOf(r.credential_encrypted),
                }
              : null,
        }
      : null,
    policy: r.policy_id
      ? {
          id: r.policy_id,
          name: r.policy_name,
          disclosure: r.policy_disclosure,
          emergencyStopped: r.emergency_stopped,
          versionId: r.version_id,
          version: r.version,
          digest: r.digest,
        }
      : null,
    principal: principal
      ? { kid: r.principal.kid, status: r.principal.status, documents: principal.documents }
      : null,
    delegations,
    observeWindow: r.observe_window,
    existingActionId: r.existing_action_id,
  };
}

/** A bytea column: a Buffer from a plain row, PostgreSQL's hex text inside row_to_json (the admission's read). */
function bytesOf(v: Buffer | string | null): Buffer | null {
  if (v === null || Buffer.isBuffer(v)) return v;
  return Buffer.from(v.startsWith("\\x") ? v.slice(2) : v, "hex");
}
