import type { QueryResult } from "pg";
import { holdsIdempotencyKey } from "../actions/index.js";
import type { Queryable } from "../store/queryable.js";
import { statement } from "../store/statement.js";
import { heldParameters, type HeldEvidence } from "./context-cache.js";

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

/** The context's row (context.ts `contextOf` reads it), or none when the agent is not the organization's. */
export function contextRows(
  db: Queryable,
  q: {
    organizationId: string;
    agentId: string;
    tool: string;
    defaultPlan: string;
    idempotencyKey?: string | null;
  },
  held: HeldEvidence,
): Promise<QueryResult> {
  return db.query(
    QUERY.with([
      q.organizationId,
      q.agentId,
      q.tool,
      q.defaultPlan,
      q.idempotencyKey ?? null,
      ...heldParameters(held),
    ]),
  );
}
