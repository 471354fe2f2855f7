// An Agent's delegations, kept equal to the spec: each entry (actions, expiry) is an active
// DELEGATION in the Cloud API signed by the organization principal with the key from the Secret the
// namespace's Organization names. Git is the source of truth: an entry that changed gets a new
// delegation before the old one is revoked (no moment without a grant), and an active delegation
// that matches no entry (removed from Git, or added in the dashboard) is revoked with a REVOCATION
// signed by the same principal. The key is read only when something must be signed.
import { signDelegation, signRevocation, type Signer } from "@countersign/protocol/evidence";
import type { CloudApi, Delegation } from "../cloud-api/index.js";
import type { AgentSpec, AgentStatus } from "../crds/agent.js";
import type { EventRecorder } from "../kube/events.js";
import type { PrincipalKey } from "../kube/principal-key.js";
import type { ConditionInput } from "../status/conditions.js";
import type { StatusDraft } from "../status/status-draft.js";
import type { AgentObject } from "./agent.js";

interface Context {
  cloud: CloudApi;
  events: EventRecorder;
  object: AgentObject;
  draft: StatusDraft<AgentSpec, AgentStatus>;
  orgId: string;
  agentId: string;
  /** The principal's key, read on first use. */
  principalKey: () => Promise<PrincipalKey>;
  now: () => Date;
}

type Entry = AgentSpec["delegations"][number];

const sameGrant = (d: Delegation, e: Entry) =>
  [...d.permissions].sort().join("\n") === [...e.actions].sort().join("\n") &&
  Date.parse(d.expires_at) === Date.parse(e.expiresAt);

export async function syncDelegations(c: Context, wanted: Entry[]): Promise<ConditionInput> {
  const active = (await c.cloud.agents.delegations(c.orgId, c.agentId)).filter((d) => d.state === "active");
  const previous = new Map((c.draft.status.delegations ?? []).map((d) => [d.name, d.id]));
  const used = new Set<string>();
  const kept: NonNullable<AgentStatus["delegations"]> = [];
  const problems: { reason: string; message: string }[] = [];
  let signer: Signer | undefined;
  const sign = async (): Promise<Signer | undefined> => {
    if (signer) return signer;
    const key = await c.principalKey();
    if ("problem" in key) {
      problems.push({
        reason: "PrincipalKeyUnavailable",
        message: `the organization principal's key is unavailable: ${key.problem.message}`,
      });
      return undefined;
    }
    return (signer = key.signer);
  };

  for (const entry of wanted) {
    if (Date.parse(entry.expiresAt) <= c.now().getTime()) {
      problems.push({ reason: "Expired", message: `delegation ${entry.name} expired at ${entry.expiresAt}` });
      continue;
    }
    const candidates = active.filter((d) => !used.has(d.id) && sameGrant(d, entry));
    const found = candidates.find((d) => d.id === previous.get(entry.name)) ?? candidates[0];
    if (found) {
      used.add(found.id);
      kept.push({ name: entry.name, id: found.id, expiresAt: entry.expiresAt });
      continue;
    }
    const principal = await sign();
    if (!principal) continue;
    const created = await c.cloud.agents.delegate(
      c.orgId,
      c.agentId,
      signDelegation(principal, {
        organization_id: c.orgId,
        agent_id: c.agentId,
        permissions: entry.actions,
        expires_at: entry.expiresAt,
        issued_at: c.now(),
      }),
    );
    used.add(created.id);
    kept.push({ name: entry.name, id: created.id, expiresAt: entry.expiresAt });
    await c.events.record(
      c.object,
      "Normal",
      "DelegationSigned",
      `Delegation ${entry.name} (${entry.actions.join(", ")} until ${entry.expiresAt}) signed by ${principal.kid}`,
    );
  }

  for (const stale of active.filter((d) => !used.has(d.id))) {
    const principal = await sign();
    if (!principal) continue;
    if (stale.object.body.actor !== principal.kid) {
      problems.push({
        reason: "ForeignDelegation",
        message: `delegation ${stale.id} (${stale.permissions.join(", ")}) is not in the spec and was signed by ${stale.object.body.actor}, whose key the operator does not hold; an owner revokes it`,
      });
      continue;
    }
    await c.cloud.agents.revokeDelegation(
      c.orgId,
      stale.id,
      signRevocation(principal, stale.object_id, c.now()),
    );
    await c.events.record(
      c.object,
      "Normal",
      "DelegationRevoked",
      `Delegation ${stale.id} (${stale.permissions.join(", ")}) revoked: it is not in the spec`,
    );
  }

  c.draft.update({ delegations: kept });
  if (problems.length > 0)
    return {
      type: "DelegationValid",
      status: "False",
      reason: problems[0]!.reason,
      message: [...new Set(problems.map((p) => p.message))].join("; "),
    };
  return wanted.length === 0
    ? {
        type: "DelegationValid",
        status: "True",
        reason: "NoDelegations",
        message: "no delegations: every call of the agent is refused NO_DELEGATION",
      }
    : {
        type: "DelegationValid",
        status: "True",
        reason: "Signed",
        message: `${kept.length} delegation(s) active`,
      };
}
