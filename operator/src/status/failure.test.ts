import { describe, expect, it } from "vitest";
import { CloudApiError, CloudApiUnavailableError } from "../cloud-api/client.js";
import { failureOf } from "./failure.js";

describe("failureOf", () => {
  it("names the Cloud API away, an unreachable upstream, a missing binding and a refusal with its issues", () => {
    const refused = Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } });
    expect(failureOf(new CloudApiUnavailableError(refused))).toEqual({
      reason: "CloudAPIUnavailable",
      message: "the Cloud API did not answer (ECONNREFUSED); retrying with backoff",
    });
    expect(failureOf(new CloudApiError(503, "SERVICE_UNAVAILABLE", "draining")).reason).toBe(
      "CloudAPIUnavailable",
    );
    expect(failureOf(new CloudApiError(502, "UPSTREAM_UNREACHABLE", "could not connect"))).toEqual({
      reason: "UpstreamUnreachable",
      message: "the Cloud API could not reach the upstream: UPSTREAM_UNREACHABLE: could not connect",
    });
    const missing = failureOf(new CloudApiError(404, "NOT_FOUND", "organization not found"), "org-1");
    expect(missing.reason).toBe("BindingMissing");
    expect(missing.message).toContain("POST /orgs/org-1/operator-bindings");
    expect(failureOf(new CloudApiError(404, "NOT_FOUND", "tool not found")).reason).toBe("Refused");
    const skew = failureOf(
      new CloudApiError(200, "INVALID_ANSWER", "the answer does not match its schema at tool.binding"),
    );
    expect(skew.reason).toBe("InvalidAnswer");
    expect(skew.message).toContain("tool.binding");
    const invalid = new CloudApiError(422, "POLICY_INVALID", "the policy document is invalid", {
      issues: [
        {
          path: "rules.0.effect",
          code: "invalid_value",
          message: "expected allow, require_approval or deny",
        },
        { path: "", code: "document_too_large", message: "at most 256 KiB" },
      ],
    });
    expect(failureOf(invalid)).toEqual({
      reason: "PolicyInvalid",
      message:
        "the Cloud API refused: POLICY_INVALID: the policy document is invalid; rules.0.effect: expected allow, require_approval or deny (invalid_value); (document): at most 256 KiB (document_too_large)",
    });
  });

  it("gives the apiserver's own message for a Kubernetes API error", () => {
    const conflict = Object.assign(new Error("HTTP-Code: 409\nMessage: Unknown API Status Code!"), {
      code: 409,
      body: JSON.stringify({
        kind: "Status",
        message: "the object has been modified; please apply your changes to the latest version",
      }),
    });
    expect(failureOf(conflict)).toEqual({
      reason: "KubernetesAPIError",
      message:
        "the Kubernetes API answered 409: the object has been modified; please apply your changes to the latest version",
    });
  });
});
