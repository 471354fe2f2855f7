// Where a refused policy document sits in the Policy resource. The Cloud API's POLICY_INVALID
// names each issue by its path in the document (`rules.0.effect`); the admission webhook names the
// same issue by its path in the resource (`spec.document.rules.0.effect`, review.ts). Status uses
// the resource's form too, so `kubectl apply` and `kubectl get` name a problem the same way, and
// the path names the field a person edits (the document or the rollout candidate).
import { issuesDetailsSchema } from "@countersign/protocol/wire";
import { CloudApiError } from "../cloud-api/index.js";

/** The fields of a Policy that hold a document. */
export type DocumentField = "spec.document" | "spec.rollout.candidate";

/** `call`, with a POLICY_INVALID refusal's issue paths made paths in the resource under `field`. */
export async function atField<T>(field: DocumentField, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw inResource(field, error);
  }
}

function inResource(field: DocumentField, error: unknown): unknown {
  if (!(error instanceof CloudApiError && error.code === "POLICY_INVALID")) return error;
  const details = issuesDetailsSchema.safeParse(error.details);
  if (!details.success) return error;
  const moved = details.data.issues.map((issue) => ({
    ...issue,
    path: issue.path ? `${field}.${issue.path}` : field,
  }));
  return new CloudApiError(error.status, error.code, error.message, { ...error.details, issues: moved });
}
