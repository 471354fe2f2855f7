// Activating a version through the Cloud API's gates (SPEC 3.4) and showing what they found:
// ExamplesPassing with the failing examples, gates.language for the language gate. A refusal
// activates nothing (the Cloud API's guarantee); the pass then ends not Ready.
import { examplesFailingDetailsSchema } from "@countersign/protocol/wire";
import { CloudApiError } from "../cloud-api/index.js";
import type { CloudApi } from "../cloud-api/index.js";
import type { Activation, PolicyVersion } from "../cloud-api/policies.js";
import type { PolicySpec, PolicyStatus } from "../crds/policy.js";
import type { CustomObject } from "../kube/custom-objects.js";
import type { EventRecorder } from "../kube/events.js";
import type { StatusDraft } from "../status/status-draft.js";
import { failingOf, listedFailing as listed } from "./policy-examples.js";

export type ActivationOutcome = { activated: true } | { activated: false; reason: string; message: string };

export async function activateThroughGates(o: {
  api: CloudApi["policies"];
  orgId: string;
  policyId: string;
  activeVersionId: string | null;
  version: PolicyVersion;
  /** What the version is, for people: "version 3", "the require-approval copy (version 5)". */
  label: string;
  acknowledgeFailingExamples: boolean;
  draft: StatusDraft<PolicySpec, PolicyStatus>;
  events: EventRecorder;
  object: CustomObject<PolicySpec, PolicyStatus>;
}): Promise<ActivationOutcome> {
  const { draft } = o;
  const gates = () => draft.status.gates ?? {};
  let answer: Activation;
  try {
    answer = await o.api.activate(o.orgId, o.policyId, o.version.id, {
      acknowledge_failing_examples: o.acknowledgeFailingExamples,
      expected_active_version_id: o.activeVersionId,
    });
  } catch (error) {
    if (!(error instanceof CloudApiError)) throw error;
    if (error.code === "EXAMPLES_FAILING") {
      const details = examplesFailingDetailsSchema.safeParse(error.details);
      const failing = failingOf(details.success ? details.data.failing : []);
      const message = `${o.label} not activated: ${listed(failing)}`;
      draft.set({ type: "ExamplesPassing", status: "False", reason: "ExamplesFailing", message });
      draft.update({ gates: { ...gates(), examples: { passing: false, failing } } });
      return { activated: false, reason: "ExamplesFailing", message };
    }
    if (error.code === "GATEWAYS_NOT_UPGRADED") {
      const message = `${o.label} not activated: ${error.message}`;
      draft.update({ gates: { ...gates(), language: { passing: false, message: error.message } } });
      return { activated: false, reason: "GatewaysNotUpgraded", message };
    }
    throw error;
  }
  const failing = failingOf((answer.examples?.results ?? []).filter((r) => r.passed === false));
  if (failing.length > 0) {
    // Activated because the spec acknowledges failing examples: they still fail, and status says so.
    draft.set({
      type: "ExamplesPassing",
      status: "False",
      reason: "FailingAcknowledged",
      message: `${o.label} activated with acknowledgeFailingExamples: ${listed(failing)}`,
    });
    draft.update({
      gates: { ...gates(), examples: { passing: false, failing }, language: { passing: true } },
    });
  } else {
    draft.set({
      type: "ExamplesPassing",
      status: "True",
      reason: "Passed",
      message: `${o.label} passed the examples gate`,
    });
    draft.update({ gates: { ...gates(), examples: { passing: true }, language: { passing: true } } });
  }
  await o.events.record(
    o.object,
    "Normal",
    "Activated",
    `${o.label[0]!.toUpperCase()}${o.label.slice(1)} (${o.version.digest}) activated`,
  );
  return { activated: true };
}
