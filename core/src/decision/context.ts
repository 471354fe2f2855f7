import type { IdentityDocument, SignedObject } from "@countersign/protocol/evidence";
import { identityLogOf } from "../identities/index.js";
import type { Queryable } from "../store/queryable.js";
import { contextRows } from "./context-store.js";
import type { WarmTicket } from "./warm-admission.js";
import { NOTHING_HELD, type ContextCache, type HeldEvidence } from "./context-cache.js";

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
  const { rows } = await contextRows(db, q, held);
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
