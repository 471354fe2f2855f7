// Policy reconciler: keeps the Cloud API policy's examples and disclosure as the spec says, and
// brings about the desired rollout through the Cloud API's own gates (SPEC 3.3-3.6, 3.9):
// - Enforce: the document's version (an existing one with its digest, else a new one) is activated
//   through the gates (policy-activation.ts); a shadow is cleared.
// - Shadow: the document stays active, the candidate's version is the shadow.
// - RequireApproval: the candidate's version is the shadow and its require-approval copy is
//   activated, which is what the derived stage RequireApproval means (SPEC 3.5).
// - rollbackToVersion: a rollback instead of any activation (policy-rollback.ts).
// - rollout.observe: observe windows for named Agents (policy-observe.ts).
// Status reports the derived stage (GET policy-status) and the active and shadow versions.
// Policies and versions are never deleted in the Cloud API (SPEC 2.4), so deleting the resource
// changes nothing there.
import { isDeepStrictEqual } from "node:util";
import type { KubeConfig } from "@kubernetes/client-node";
import {
  CloudApiError,
  type Policy,
  type PolicyExampleWire,
  type PolicyVersion,
} from "../cloud-api/index.js";
import type { PolicyDetail } from "../cloud-api/policies.js";
import { describeRefusal, isRefusal } from "../cloud-api/refusal.js";
import type { Reconciler } from "../controller/controller.js";
import type { AgentSpec, AgentStatus } from "../crds/agent.js";
import { kindDefinition } from "../crds/kinds.js";
import { policySpec, type PolicySpec, type PolicyStatus } from "../crds/policy.js";
import { CustomObjects, type CustomObject } from "../kube/custom-objects.js";
import type { ConditionInput } from "../status/conditions.js";
import { StatusDraft } from "../status/status-draft.js";
import { activateThroughGates } from "./policy-activation.js";
import {
  agentReader,
  nextWindowEnd,
  reconcileObserveWindows,
  type ObserveOutcome,
} from "./policy-observe.js";
import { bringAboutRollback } from "./policy-rollback.js";
import { PolicyVersions } from "./policy-versions.js";
import { atField } from "./policy-document-field.js";
import { documentInForce, examplesOfActive } from "./policy-examples.js";
import type { ReconcilerDeps } from "./deps.js";

export type PolicyObject = CustomObject<PolicySpec, PolicyStatus>;

interface Deps extends ReconcilerDeps<PolicySpec, PolicyStatus> {
  /** Agent resources, read for their status.agentId (default: all namespaces, through kubeConfig). */
  agents?: Pick<CustomObjects<AgentSpec, AgentStatus>, "get">;
}

export function policyObjects(kubeConfig: KubeConfig, namespace = "") {
  return new CustomObjects<PolicySpec, PolicyStatus>(kubeConfig, kindDefinition("Policy"), namespace);
}

export function examplesWire(spec: PolicySpec): PolicyExampleWire[] {
  return spec.examples.map((e) => ({
    id: e.id,
    ...(e.label !== undefined ? { label: e.label } : {}),
    action: e.action,
    tool: e.tool,
    ...(e.amount !== undefined ? { amount: e.amount, currency: e.currency } : {}),
    expected_outcome: e.expectedOutcome,
    expected_rule: e.expectedRule,
  }));
}

const stages = {
  none: "None",
  observe: "Observe",
  shadow: "Shadow",
  require_approval: "RequireApproval",
  enforce: "Enforce",
} as const;

export function policyReconciler(deps: Deps): Reconciler<PolicyObject> {
  const now = deps.now ?? (() => new Date());
  const agents = deps.agents ?? agentReader(deps.kubeConfig);
  return {
    kind: "Policy",
    async reconcile(_key, object) {
      if (!object || object.metadata?.deletionTimestamp) return;
      const namespace = object.metadata!.namespace!;
      // Its writes name this resource, so the record shows Kubernetes manages it.
      const managed = deps.cloud.managing({ kind: "Policy", namespace, name: object.metadata!.name! });
      const resource = `${namespace}/${object.metadata!.name}`;
      const generation = object.metadata?.generation ?? 0;
      const spec = policySpec.parse(object.spec);
      const name = spec.name ?? object.metadata!.name!;
      const draft = new StatusDraft({ objects: deps.objects, events: deps.events, now }, object);
      const org = await deps.organizationOf(namespace);
      if ("problem" in org) return draft.fail(org.problem.reason, org.problem.message);
      const orgId = org.organizationId;
      const api = managed.policies;
      let observe: ObserveOutcome;
      /** Set when the version in force fails this generation's examples and the spec does not acknowledge it. */
      let examplesFailing: string | undefined;

      try {
        // The policy: by id, else adopted by name (unique), else created.
        let policy: Policy | undefined;
        let detail: PolicyDetail | undefined;
        if (draft.status.policyId) {
          try {
            detail = await api.get(orgId, draft.status.policyId);
            policy = detail.policy;
          } catch (error) {
            if (!(error instanceof CloudApiError && error.status === 404)) throw error;
          }
        }
        policy ??= await api.findByName(orgId, name);
        // Created with its document as version 1 in one request, which the Cloud API validates
        // before it records anything: an invalid document (admitted while the webhook was away)
        // leaves no policy behind, only PolicyInvalid in status.
        policy ??= await atField("spec.document", () =>
          api.create(orgId, {
            name,
            agent_disclosure: spec.agentDisclosure,
            document: spec.document,
            note: `from ${resource} generation ${generation}`,
          }),
        );
        const policyId = policy.id;
        draft.update({ policyId });
        // The detail read above is the one the versions start from: no second read of it.
        const versions = await PolicyVersions.load(api, orgId, policyId, resource, detail);
        if (versions.detail.policy.agent_disclosure !== spec.agentDisclosure)
          await api.update(orgId, policyId, { agent_disclosure: spec.agentDisclosure });
        const examples = examplesWire(spec);
        const normalise = (list: PolicyExampleWire[]) =>
          JSON.parse(JSON.stringify(list.map((e) => ({ ...e, label: e.label ?? undefined }))));
        if (!isDeepStrictEqual(normalise(versions.detail.examples ?? []), normalise(examples)))
          await api.putExamples(orgId, policyId, examples);

        const setShadow = async (version: PolicyVersion) => {
          if (await versions.setShadow(version))
            await deps.events.record(
              object,
              "Normal",
              "ShadowSet",
              `Version ${version.number} is the shadow version`,
            );
        };

        if (spec.rollbackToVersion !== undefined) {
          // A declared rollback replaces activating the document (policy-rollback.ts).
          const outcome = await bringAboutRollback({
            api,
            orgId,
            detail: versions.detail,
            toVersion: spec.rollbackToVersion,
            note: `rollbackToVersion ${spec.rollbackToVersion} from ${resource} generation ${generation}`,
          }).catch((error: unknown) => {
            if (isRefusal(error))
              draft.set({
                type: "RolledBack",
                status: "False",
                reason: "Refused",
                message: `rollback to version ${spec.rollbackToVersion} refused: ${describeRefusal(error)}`,
              });
            throw error;
          });
          if (outcome.state === "unknown_version") {
            draft.set({
              type: "RolledBack",
              status: "False",
              reason: "UnknownVersion",
              message: outcome.message,
            });
            await refreshVersions(orgId, policyId);
            return draft.fail("UnknownVersion", outcome.message, 300_000);
          }
          if (outcome.made) {
            const made = outcome.made;
            draft.update({
              rollback: {
                toVersion: spec.rollbackToVersion,
                version: made.version.number,
                closedActions: made.closed_actions,
              },
            });
            await deps.events.record(
              object,
              "Normal",
              "RolledBack",
              `Rolled back to version ${made.restored_version.number}: version ${made.version.number} is active (open actions ${made.open_actions}, ${made.closed_actions} closed)${
                made.warnings.length ? `; warnings: ${made.warnings.map((w) => w.code).join(", ")}` : ""
              }`,
            );
          }
          const done =
            draft.status.rollback?.toVersion === spec.rollbackToVersion ? draft.status.rollback : undefined;
          draft.set({
            type: "RolledBack",
            status: "True",
            reason: "RolledBack",
            message: done
              ? `version ${done.toVersion} restored as version ${done.version} (${done.closedActions} open action(s) closed); the document is not activated while rollbackToVersion is set`
              : `version ${spec.rollbackToVersion}'s content is active (version ${outcome.active.number}); the document is not activated while rollbackToVersion is set`,
          });
          await versions.refresh();
        } else {
          draft.update({ rollback: undefined });
          draft.update({ conditions: draft.status.conditions?.filter((c) => c.type !== "RolledBack") });

          // The version to enforce: the document, or in RequireApproval the require-approval copy
          // of the candidate, with the candidate as shadow (that pair is the derived stage, SPEC 3.5).
          let wanted: PolicyVersion;
          let label: string;
          if (spec.rollout.stage === "RequireApproval" && spec.rollout.candidate) {
            const candidate = await atField("spec.rollout.candidate", () =>
              versions.of(spec.rollout.candidate, `candidate from ${resource}`),
            );
            await setShadow(candidate);
            wanted = await versions.requireApprovalCopyOf(candidate);
            label = `the require-approval copy of version ${candidate.number} (version ${wanted.number})`;
          } else {
            wanted = await atField("spec.document", () =>
              versions.of(spec.document, `from ${resource} generation ${generation}`),
            );
            label = `version ${wanted.number}`;
          }
          if (wanted.status !== "active") {
            const activation = await activateThroughGates({
              api,
              orgId,
              policyId,
              activeVersionId: versions.detail.policy.active_version_id,
              version: wanted,
              label,
              acknowledgeFailingExamples: spec.rollout.acknowledgeFailingExamples,
              draft,
              events: deps.events,
              object,
            });
            if (!activation.activated) {
              await refreshVersions(orgId, policyId);
              return draft.fail(activation.reason, activation.message, 60_000);
            }
            await versions.refresh();
          } else {
            // Active already: its examples gate is run on this generation's examples, never an
            // earlier pass's answer kept (an edit of the examples alone may make one fail).
            const checked = examplesOfActive({
              document: documentInForce(spec),
              examples,
              label,
              acknowledged: spec.rollout.acknowledgeFailingExamples,
            });
            if (checked) {
              draft.set(checked.condition);
              draft.update({ gates: { ...draft.status.gates, examples: checked.gate } });
              if (checked.condition.reason === "ExamplesFailing") examplesFailing = checked.condition.message;
            } else {
              draft.set({
                type: "ExamplesPassing",
                status: "Unknown",
                reason: "NotEvaluated",
                message: `${label} is active; its document is not one this operator can run examples on`,
              });
            }
          }

          // Shadow: the candidate's version as shadow; Enforce clears one.
          if (spec.rollout.stage === "Shadow" && spec.rollout.candidate)
            await setShadow(
              await atField("spec.rollout.candidate", () =>
                versions.of(spec.rollout.candidate, `candidate from ${resource}`),
              ),
            );
        }
        if (spec.rollout.stage === "Enforce" && versions.detail.policy.shadow_version_id)
          await api.clearShadow(orgId, policyId);

        observe = await reconcileObserveWindows({
          cloud: deps.cloud,
          orgId,
          namespace,
          declaredBy: resource,
          declared: spec.rollout.observe,
          recorded: draft.status.observeWindows,
          agents,
        });
        for (const change of observe.changes)
          await deps.events.record(object, "Normal", change.reason, change.message);
        draft.update({ observeWindows: observe.windows.length ? observe.windows : undefined });
      } catch (error) {
        if (isRefusal(error)) return draft.refused(error, orgId);
        throw error;
      }
      await refreshVersions(orgId, draft.status.policyId!);
      const summary = `stage ${draft.status.stage}, active version ${draft.status.activeVersion?.number ?? "none"}`;
      const observing = observeCondition(observe);
      if (observing) draft.set(observing);
      else draft.update({ conditions: draft.status.conditions?.filter((c) => c.type !== "ObserveWindows") });
      if (observe.waiting.length || observe.refused.length) {
        draft.synced(`policy ${draft.status.policyId} matches the spec but for observe windows`, {
          status: "False",
          reason: observing!.reason,
          message: `${summary}; ${observing!.message}`,
        });
        if (await draft.write())
          await deps.events.record(object, "Warning", observing!.reason, observing!.message);
        // A waiting window opens when its Agent's status changes (Agents are watched); a refusal
        // is looked at again each minute.
        return observe.waiting.length ? undefined : { requeueAfterMs: 60_000 };
      }
      if (examplesFailing) {
        draft.synced(`policy ${draft.status.policyId} matches the spec`, {
          status: "False",
          reason: "ExamplesFailing",
          message: `${summary}; ${examplesFailing}`,
        });
        if (await draft.write())
          await deps.events.record(object, "Warning", "ExamplesFailing", examplesFailing);
        return;
      }
      draft.synced(`policy ${draft.status.policyId} matches the spec`, {
        status: "True",
        reason: "Synced",
        message: summary,
      });
      await draft.write();
      const nextEnd = nextWindowEnd(observe.windows, now());
      return nextEnd === undefined ? undefined : { requeueAfterMs: nextEnd };

      /** The derived stage and the active and shadow versions, as the Cloud API reports them. */
      async function refreshVersions(org: string, policyId: string): Promise<void> {
        const item = (await managed.policies.status(org)).find((p) => p.policy_id === policyId);
        const brief = (v: { id: string; number: number; digest: string } | null | undefined) =>
          v ? { id: v.id, number: v.number, digest: v.digest } : undefined;
        draft.update({
          stage: item ? stages[item.stage] : undefined,
          activeVersion: brief(item?.active_version),
          shadowVersion: brief(item?.shadow_version),
        });
      }
    },
  };
}

/** The ObserveWindows condition, when windows are declared or shown. */
function observeCondition(o: ObserveOutcome): ConditionInput | undefined {
  if (o.waiting.length)
    return {
      type: "ObserveWindows",
      status: "False",
      reason: "AgentNotReconciled",
      message: `waiting for Agent ${o.waiting.join(", ")} to be reconciled (no status.agentId yet); no window opened for it`,
    };
  if (o.refused.length)
    return {
      type: "ObserveWindows",
      status: "False",
      reason: "ObserveRefused",
      message: `the Cloud API refused an observe window: ${o.refused.join("; ")}`,
    };
  if (!o.windows.length) return undefined;
  const open = o.windows.filter((w) => w.state === "open");
  return {
    type: "ObserveWindows",
    status: "True",
    reason: open.length ? "Open" : "Ended",
    message: o.windows
      .map((w) => (w.state === "open" ? `${w.agent}: open until ${w.endsAt}` : `${w.agent}: ended`))
      .join("; "),
  };
}
