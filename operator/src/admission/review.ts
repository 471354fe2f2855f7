// What the admission webhook decides: a Policy's document and rollout candidate are run through
// the Cloud API's own policy validation (the engine in @countersign/protocol, the same code behind
// POST /orgs/<id>/policies/validate), so `kubectl apply` refuses a bad document with the issues
// the Cloud API would give, by path and reason (never the submitted value). Everything else the
// CRD schema and its CEL rules check in the apiserver itself (the webhook event types are an enum
// there).
import { validatePolicy, type PolicyIssue } from "@countersign/protocol/policy";

/** The parts of an AdmissionReview (admission.k8s.io/v1) the webhook reads and writes. */
export interface AdmissionReview {
  apiVersion: string;
  kind: "AdmissionReview";
  request?: {
    uid: string;
    kind?: { group?: string; kind?: string };
    operation?: string;
    object?: { spec?: Record<string, unknown> } | null;
  };
  response?: {
    uid: string;
    allowed: boolean;
    status?: { code: number; reason: string; message: string };
  };
}

/** At most this many issues in the refusal; the rest are counted. */
const MAX_ISSUES = 20;

export function policyIssues(spec: Record<string, unknown> | undefined): string[] {
  if (!spec) return [];
  const found: string[] = [];
  const check = (field: string, document: unknown) => {
    if (document === undefined) return;
    const result = validatePolicy(document);
    if (!result.ok) found.push(...result.issues.map((i: PolicyIssue) => describeIssue(field, i)));
  };
  check("spec.document", spec.document);
  const rollout = spec.rollout as { candidate?: unknown } | undefined;
  check("spec.rollout.candidate", rollout?.candidate);
  return found;
}

const describeIssue = (field: string, issue: PolicyIssue) =>
  `${issue.path ? `${field}.${issue.path}` : field}: ${issue.message} (${issue.code})`;

export function review(input: AdmissionReview): AdmissionReview {
  const request = input.request;
  const uid = request?.uid ?? "";
  const reply = (response: Omit<NonNullable<AdmissionReview["response"]>, "uid">): AdmissionReview => ({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    response: { uid, ...response },
  });
  if (request?.kind?.group !== "countersign.dev" || request.kind.kind !== "Policy" || !request.object)
    return reply({ allowed: true });
  const issues = policyIssues(request.object.spec);
  if (issues.length === 0) return reply({ allowed: true });
  const listed = issues.slice(0, MAX_ISSUES);
  if (issues.length > MAX_ISSUES) listed.push(`${issues.length - MAX_ISSUES} more`);
  return reply({
    allowed: false,
    status: {
      code: 422,
      reason: "Invalid",
      message: `POLICY_INVALID: the policy document is invalid: ${listed.join("; ")}`,
    },
  });
}
