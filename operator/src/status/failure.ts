// What a failed reconcile pass says in status. A pass that throws (the Cloud API away, an upstream
// it could not reach, the apiserver refusing a write) is retried with backoff by the work queue,
// and its cause is written to Reconciled and Ready with a reason a person can act on, so status
// never keeps saying what an earlier pass found.
import { CloudApiError, CloudApiUnavailableError } from "../cloud-api/client.js";
import { describeRefusal, refusedMessage } from "../cloud-api/refusal.js";
import { describeError } from "../controller/controller.js";

export interface Failure {
  reason: string;
  message: string;
}

const upstreamCodes = new Set(["UPSTREAM_UNREACHABLE", "UPSTREAM_ERROR", "UPSTREAM_TIMEOUT"]);

/** A 404 for the organization itself: it does not exist, or the operator is not bound to it. */
export const isOrganizationNotFound = (error: unknown): boolean =>
  error instanceof CloudApiError && error.status === 404 && /organization not found/i.test(error.message);

export const bindingMissingMessage = (organizationId?: string) =>
  `organization ${organizationId ?? "(of the namespace's Organization)"} does not exist or the operator is not bound to it: an owner binds the operator's ServiceAccount (POST /orgs/${organizationId ?? "<id>"}/operator-bindings, docs/access.md)`;

export function failureOf(error: unknown, organizationId?: string): Failure {
  if (error instanceof CloudApiUnavailableError)
    return { reason: "CloudAPIUnavailable", message: `${error.message}; retrying with backoff` };
  if (error instanceof CloudApiError) {
    // A success answer its wire schema refuses: an operator and a Cloud API of different versions.
    if (error.code === "INVALID_ANSWER")
      return {
        reason: "InvalidAnswer",
        message: `the Cloud API's answer is not what this operator expects (${error.message}); check that the operator and the Cloud API are of the same version; retrying with backoff`,
      };
    if (upstreamCodes.has(error.code))
      return {
        reason: "UpstreamUnreachable",
        message: `the Cloud API could not reach the upstream: ${describeRefusal(error)}`,
      };
    if (isOrganizationNotFound(error))
      return { reason: "BindingMissing", message: bindingMissingMessage(organizationId) };
    if (error.status === 401 || error.status === 403)
      return { reason: "NotAuthorized", message: refusedMessage(error) };
    if (error.status >= 500 || error.status === 429)
      return {
        reason: "CloudAPIUnavailable",
        message: `the Cloud API answered ${error.status} ${describeRefusal(error)}; retrying with backoff`,
      };
    return {
      reason: error.code === "POLICY_INVALID" ? "PolicyInvalid" : "Refused",
      message: refusedMessage(error),
    };
  }
  // @kubernetes/client-node's ApiException carries the HTTP status as `code`.
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === "number")
    return {
      reason: "KubernetesAPIError",
      message: `the Kubernetes API answered ${code}: ${kubernetesMessage(error)}`,
    };
  return { reason: "ReconcileFailed", message: describeError(error) };
}

/** The message of the Status object the apiserver answered (names objects and fields, no data). */
function kubernetesMessage(error: unknown): string {
  const body = (error as { body?: unknown }).body;
  try {
    const status = (typeof body === "string" ? JSON.parse(body) : body) as { message?: unknown } | undefined;
    if (typeof status?.message === "string") return status.message.slice(0, 1024);
  } catch {
    // not a Status object: the error's first line
  }
  return describeError(error);
}
