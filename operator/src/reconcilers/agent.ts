// Agent reconciler: keeps a Cloud API agent as the spec says (name, disabled, the Policy it
// references), its delegations signed with the organization principal's key
// (agent-delegations.ts), and its gateway key in the named Secret (agent-gateway-key.ts). Assigning
// or switching a policy is one of the changes SPEC 4.4 reserves for admins signed in: the operator
// makes it only when an owner bound it with allow_admin_changes, and otherwise shows
// PolicyAssigned=False saying who must act. The Cloud API has no agent deletion: deleting the
// resource revokes its gateway key and delegations, disables the agent, and removes the Secret.
import type { KubeConfig } from "@kubernetes/client-node";
import type { Agent } from "../cloud-api/index.js";
import { isNotFound, isRefusal } from "../cloud-api/refusal.js";
import type { Reconciler } from "../controller/controller.js";
import { agentSpec, type AgentSpec, type AgentStatus } from "../crds/agent.js";
import { kindDefinition } from "../crds/kinds.js";
import type { PolicySpec, PolicyStatus } from "../crds/policy.js";
import { CustomObjects, type CustomObject } from "../kube/custom-objects.js";
import { principalKeyReader, type PrincipalKey } from "../kube/principal-key.js";
import { SecretNotOursError, SecretWriter } from "../kube/secrets.js";
import type { ConditionInput } from "../status/conditions.js";
import { syncDelegations } from "./agent-delegations.js";
import { removeGatewayKey, syncGatewayKey } from "./agent-gateway-key.js";
import type { ReconcilerDeps } from "./deps.js";
import type { OrganizationLookup } from "./organization-of.js";
import { ownedResourceReconciler } from "./owned-resource.js";

export type AgentObject = CustomObject<AgentSpec, AgentStatus>;

interface Deps extends ReconcilerDeps<AgentSpec, AgentStatus> {
  policies: {
    get(namespace: string, name: string): Promise<CustomObject<PolicySpec, PolicyStatus> | undefined>;
  };
}

const isManagedBy = (agent: Agent, namespace: string, name: string) =>
  agent.managed_by?.kind === "Agent" &&
  agent.managed_by.namespace === namespace &&
  agent.managed_by.name === name;

export function agentObjects(kubeConfig: KubeConfig, namespace = "") {
  return new CustomObjects<AgentSpec, AgentStatus>(kubeConfig, kindDefinition("Agent"), namespace);
}

/** The Cloud API policy the spec asks for: null for none, undefined while its Policy is not reconciled. */
async function wantedPolicy(
  deps: Deps,
  namespace: string,
  spec: AgentSpec,
): Promise<{ id: string | null } | { problem: ConditionInput }> {
  if (!spec.policyRef) return { id: null };
  const policy = await deps.policies.get(namespace, spec.policyRef.name);
  const id = policy?.status?.policyId;
  if (!id)
    return {
      problem: {
        type: "PolicyAssigned",
        status: "False",
        reason: "PolicyNotReady",
        message: `Policy ${spec.policyRef.name} ${policy ? "has no Cloud API policy yet" : "does not exist"}`,
      },
    };
  return { id };
}

const adminRequired = (policyName: string): ConditionInput => ({
  type: "PolicyAssigned",
  status: "False",
  reason: "AdminRequired",
  message: `assigning policy ${policyName} needs an owner or admin signed in: assign it in the dashboard, or bind the operator with allow_admin_changes (docs/access.md)`,
});

export function agentReconciler(deps: Deps): Reconciler<AgentObject> {
  const now = deps.now ?? (() => new Date());
  const secrets = new SecretWriter(deps.kubeConfig);
  const readPrincipalKey = principalKeyReader(deps.kubeConfig);

  /** The organization principal's private key, from the Secret the namespace's Organization names. */
  const principalKeyOf =
    ({ namespace, org }: { namespace: string; org: OrganizationLookup }) =>
    async (): Promise<PrincipalKey> => {
      const ref = "problem" in org ? undefined : org.organization.spec.principalKeySecretRef;
      if (!ref)
        return {
          problem: {
            reason: "SecretNotFound",
            message: `the Organization of namespace ${namespace} names no principalKeySecretRef`,
          },
        };
      return readPrincipalKey(namespace, ref);
    };

  return ownedResourceReconciler({
    kind: "Agent",
    deps,
    parseSpec: (raw) => agentSpec.parse(raw),
    created: (status) => !!status.agentId,
    // No agent deletion in the Cloud API: its key and delegations are revoked, and it is disabled.
    async cleanUp(pass, orgId) {
      const { object, draft, spec } = pass;
      const agentId = draft.status.agentId;
      if (!orgId) return;
      const c = { cloud: deps.cloud, secrets, events: deps.events, object, draft, orgId };
      try {
        // Also keys whose creation answer was lost (even before the agent's id reached the
        // status), and a Secret written before the status was.
        await removeGatewayKey(c, { sweep: true, secretName: spec.gatewayKey?.secretName });
        if (!agentId) return;
        const left = await syncDelegations({ ...c, agentId, principalKey: principalKeyOf(pass), now }, []);
        if (left.status === "False") await deps.events.record(object, "Warning", left.reason, left.message);
        await pass.managed.agents.update(orgId, agentId, { status: "disabled" });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    },
    async sync(pass) {
      const { object, namespace, spec, draft, orgId } = pass;
      const name = spec.name ?? object.metadata!.name!;
      const principalKey = principalKeyOf(pass);
      const status = spec.disabled ? "disabled" : "active";
      const conditions: ConditionInput[] = [];

      try {
        const policy = await wantedPolicy(deps, namespace, spec);
        let agent: Agent | undefined;
        if (draft.status.agentId) {
          try {
            agent = await pass.managed.agents.get(orgId, draft.status.agentId);
          } catch (error) {
            if (!isNotFound(error)) throw error;
          }
        }
        agent ??= await pass.managed.agents.findByName(orgId, name);
        if (!agent) {
          const policyId = "id" in policy ? policy.id : null;
          try {
            agent = await pass.managed.agents.create(orgId, { name, status, policy_id: policyId });
          } catch (error) {
            // Without the grant the agent is still created, and its policy left to a person.
            if (!(isRefusal(error) && error.code === "ADMIN_REQUIRED" && policyId)) throw error;
            agent = await pass.managed.agents.create(orgId, { name, status, policy_id: null });
          }
          await deps.events.record(object, "Normal", "Created", `Agent ${agent.id} created`);
        } else {
          const update: { name?: string; status?: "active" | "disabled" } = {};
          if (agent.name !== name) update.name = name;
          if (agent.status !== status) update.status = status;
          if (Object.keys(update).length > 0) {
            agent = await pass.managed.agents.update(orgId, agent.id, update);
            await deps.events.record(
              object,
              "Normal",
              "Updated",
              `Set ${Object.keys(update).join(", ")} of agent ${agent.id}`,
            );
          }
        }
        // An agent adopted by name, or written before markers were stored, is claimed with an empty write.
        if (!isManagedBy(agent, namespace, object.metadata!.name!))
          agent = await pass.managed.agents.update(orgId, agent.id, {});
        draft.update({ agentId: agent.id });

        if ("problem" in policy) conditions.push(policy.problem);
        else if ((agent.policy?.id ?? null) !== policy.id) {
          try {
            agent = await pass.managed.agents.update(orgId, agent.id, { policy_id: policy.id });
            await deps.events.record(
              object,
              "Normal",
              "PolicySwitched",
              policy.id
                ? `Agent ${agent.id} now decided by policy ${spec.policyRef!.name}`
                : `Agent ${agent.id} has no policy`,
            );
          } catch (error) {
            if (!(isRefusal(error) && error.code === "ADMIN_REQUIRED")) throw error;
            conditions.push(adminRequired(spec.policyRef?.name ?? "(none)"));
          }
        }
        draft.update({ policyId: agent.policy?.id });
        if (!conditions.some((x) => x.type === "PolicyAssigned"))
          conditions.push({
            type: "PolicyAssigned",
            status: "True",
            reason: agent.policy ? "Assigned" : "NoPolicy",
            message: agent.policy
              ? `decided by policy ${agent.policy.name}`
              : "no policy: every call is refused NO_POLICY",
          });

        const c = {
          cloud: deps.cloud,
          secrets,
          events: deps.events,
          object,
          draft,
          orgId,
          agentId: agent.id,
        };
        conditions.push(await syncDelegations({ ...c, principalKey, now }, spec.delegations));
        conditions.push(await syncGatewayKey(c, spec));
      } catch (error) {
        if (error instanceof SecretNotOursError) return draft.fail(error.reason, error.message);
        if (isRefusal(error)) return draft.refused(error, orgId);
        throw error;
      }

      for (const x of conditions) draft.set(x);
      const failing = conditions.find((x) => x.status === "False");
      draft.synced(
        `agent ${draft.status.agentId} matches the spec`,
        failing
          ? { status: "False", reason: failing.reason, message: failing.message }
          : {
              status: "True",
              reason: "Synced",
              message: spec.disabled ? "agent disabled, as the spec says" : "agent ready",
            },
      );
      await draft.write();
      // A Policy resource is watched (its status requeues this Agent); a person's assignment in the
      // dashboard is no watch event, so that one is looked at again soon.
      return failing?.reason === "AdminRequired" ? { requeueAfterMs: 30_000 } : undefined;
    },
  });
}
