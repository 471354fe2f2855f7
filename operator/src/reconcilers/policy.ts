// Policy reconciler: keeps the Cloud API policy's examples and disclosure as the spec says, and
// brings about the desired rollout through the Cloud API's own gates (SPEC 3.4): a document whose
// digest is not the active version's becomes a version (an existing draft with that digest is
// reused) and is activated; a failing examples gate shows ExamplesPassing=False with the failing
// examples and activates nothing. Stage Shadow sets the candidate's version as shadow; Enforce
// clears a shadow. Status reports the derived stage (GET policy-status) and the active and shadow
// versions. Policies and versions are never deleted in the Cloud API (SPEC 2.4), so deleting the
// resource changes nothing there. Not yet: RequireApproval, observe windows, rollbackToVersion.
import { isDeepStrictEqual } from "node:util";
import type { KubeConfig } from "@kubernetes/client-node";
import {
  type CloudApi,
  CloudApiError,
  type Policy,
  type PolicyExampleWire,
  type PolicyVersion,
} from "../cloud-api/index.js";
import { isRefusal } from "../cloud-api/refusal.js";
import type { Reconciler } from "../controller/controller.js";
import { kindDefinition } from "../crds/kinds.js";
import { policySpec, type PolicySpec, type PolicyStatus } from "../crds/policy.js";
import { CustomObjects, type CustomObject } from "../kube/custom-objects.js";
import type { EventRecorder } from "../kube/events.js";
import { StatusDraft } from "../status/status-draft.js";
import type { OrganizationLookup } from "./organization-of.js";

export type PolicyObject = CustomObject<PolicySpec, PolicyStatus>;

interface Deps {
  kubeConfig: KubeConfig;
  cloud: CloudApi;
  events: EventRecorder;
  objects: CustomObjects<PolicySpec, PolicyStatus>;
  organizationOf: (namespace: string) => Promise<OrganizationLookup>;
  now?: () => Date;
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

interface FailingExample {
  id: string;
  expected: { outcome: string; rule_id: string | null };
  actual: { outcome: string; rule_id: string | null };
}
const describeOutcome = (o: { outcome: string; rule_id: string | null }) =>
  `${o.outcome} by ${o.rule_id ?? "the default"}`;

export function policyReconciler(deps: Deps): Reconciler<PolicyObject> {
  const now = deps.now ?? (() => new Date());
  return {
    kind: "Policy",
    async reconcile(_key, object) {
      if (!object || object.metadata?.deletionTimestamp) return;
      const namespace = object.metadata!.namespace!;
      const generation = object.metadata?.generation ?? 0;
      const spec = policySpec.parse(object.spec);
      const name = spec.name ?? object.metadata!.name!;
      const draft = new StatusDraft({ objects: deps.objects, events: deps.events, now }, object);
      const org = await deps.organizationOf(namespace);
      if ("problem" in org) return draft.fail(org.problem.reason, org.problem.message, 30_000);
      const orgId = org.organizationId;
      const api = deps.cloud.policies;

      try {
        // The policy: by id, else adopted by name (unique), else created.
        let policy: Policy | undefined;
        if (draft.status.policyId) {
          try {
            policy = (await api.get(orgId, draft.status.policyId)).policy;
          } catch (error) {
            if (!(error instanceof CloudApiError && error.status === 404)) throw error;
          }
        }
        policy ??= await api.findByName(orgId, name);
        policy ??= await api.create(orgId, { name, agent_disclosure: spec.agentDisclosure });
        draft.update({ policyId: policy.id });
        let detail = await api.get(orgId, policy.id);

        if (detail.policy.agent_disclosure !== spec.agentDisclosure)
          await api.update(orgId, policy.id, { agent_disclosure: spec.agentDisclosure });
        const examples = examplesWire(spec);
        const normalise = (list: PolicyExampleWire[]) =>
          JSON.parse(JSON.stringify(list.map((e) => ({ ...e, label: e.label ?? undefined }))));
        if (!isDeepStrictEqual(normalise(detail.examples ?? []), normalise(examples)))
          await api.putExamples(orgId, policy.id, examples);

        const versionFor = async (document: unknown, note: string): Promise<PolicyVersion> => {
          const digest = await api.digestOf(orgId, document);
          const existing = detail.versions.find((v) => v.digest === digest && v.status !== "superseded");
          if (existing) return existing;
          const created = await api.createVersion(orgId, policy.id, document, note);
          detail = await api.get(orgId, policy.id);
          return created;
        };

        // Enforce the document (every stage keeps it active).
        const wanted = await versionFor(
          spec.document,
          `from ${namespace}/${object.metadata!.name} generation ${generation}`,
        );
        if (wanted.status !== "active") {
          try {
            await api.activate(orgId, policy.id, wanted.id, {
              acknowledge_failing_examples: spec.rollout.acknowledgeFailingExamples,
              expected_active_version_id: detail.policy.active_version_id,
            });
            draft.set({
              type: "ExamplesPassing",
              status: "True",
              reason: "Passed",
              message: `version ${wanted.number} passed the examples gate`,
            });
            draft.update({ gates: { ...draft.status.gates, examples: { passing: true } } });
            await deps.events.record(
              object,
              "Normal",
              "Activated",
              `Version ${wanted.number} (${wanted.digest}) activated`,
            );
          } catch (error) {
            if (error instanceof CloudApiError && error.code === "EXAMPLES_FAILING") {
              const failing = ((error.details?.failing as FailingExample[] | undefined) ?? []).map((f) => ({
                id: f.id,
                expected: describeOutcome(f.expected),
                actual: describeOutcome(f.actual),
              }));
              const message = `version ${wanted.number} not activated: ${failing.length} saved example(s) fail: ${failing
                .map((f) => `${f.id} (expected ${f.expected}, got ${f.actual})`)
                .join("; ")}`;
              draft.set({ type: "ExamplesPassing", status: "False", reason: "ExamplesFailing", message });
              draft.update({ gates: { ...draft.status.gates, examples: { passing: false, failing } } });
              await refreshVersions(orgId, policy.id);
              return draft.fail("ExamplesFailing", message, 60_000);
            }
            throw error;
          }
        } else if (!draft.status.conditions?.some((c) => c.type === "ExamplesPassing")) {
          draft.set({
            type: "ExamplesPassing",
            status: "True",
            reason: "Passed",
            message: `active version ${wanted.number} is the document`,
          });
        }

        // Shadow: the candidate's version as shadow; other stages clear it.
        detail = await api.get(orgId, policy.id);
        if (spec.rollout.stage === "Shadow" && spec.rollout.candidate) {
          const candidate = await versionFor(
            spec.rollout.candidate,
            `candidate from ${namespace}/${object.metadata!.name}`,
          );
          if (detail.policy.shadow_version_id !== candidate.id) {
            await api.setShadow(orgId, policy.id, candidate.id);
            await deps.events.record(
              object,
              "Normal",
              "ShadowSet",
              `Version ${candidate.number} is the shadow version`,
            );
          }
        } else if (spec.rollout.stage === "Enforce" && detail.policy.shadow_version_id) {
          await api.clearShadow(orgId, policy.id);
        } else if (spec.rollout.stage === "RequireApproval") {
          await refreshVersions(orgId, policy.id);
          return draft.fail(
            "NotSupported",
            "rollout stage RequireApproval is not reconciled by this operator version",
            300_000,
          );
        }
      } catch (error) {
        if (isRefusal(error))
          return draft.fail(
            error.code === "POLICY_INVALID" ? "PolicyInvalid" : "Refused",
            `the Cloud API refused: ${error.code}: ${error.message}`,
            60_000,
          );
        throw error;
      }
      await refreshVersions(orgId, draft.status.policyId!);
      draft.set({
        type: "Reconciled",
        status: "True",
        reason: "Synced",
        message: `policy ${draft.status.policyId} matches the spec`,
      });
      draft.set({
        type: "Ready",
        status: "True",
        reason: "Synced",
        message: `stage ${draft.status.stage}, active version ${draft.status.activeVersion?.number ?? "none"}`,
      });
      await draft.write();

      /** The derived stage and the active and shadow versions, as the Cloud API reports them. */
      async function refreshVersions(org: string, policyId: string): Promise<void> {
        const item = (await deps.cloud.policies.status(org)).find((p) => p.policy_id === policyId);
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
