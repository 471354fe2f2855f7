import { describe, expect, it } from "vitest";
import { CloudApiError } from "../cloud-api/index.js";
import { describeRefusal } from "../cloud-api/refusal.js";
import { atField } from "./policy-document-field.js";

const invalid = () =>
  new CloudApiError(422, "POLICY_INVALID", "the policy document is invalid", {
    issues: [
      { path: "rules.0.effect", code: "invalid_value", message: "Invalid option" },
      { path: "", code: "invalid_type", message: "expected an object" },
    ],
  });

const refusalOf = async (call: () => Promise<unknown>) => {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CloudApiError);
  return error as CloudApiError;
};

describe("a refused document's issues in status", () => {
  it("are named by their path in the resource, as admission names them", async () => {
    const doc = await refusalOf(() => atField("spec.document", () => Promise.reject(invalid())));
    expect(doc).toMatchObject({ status: 422, code: "POLICY_INVALID" });
    expect(describeRefusal(doc)).toBe(
      "POLICY_INVALID: the policy document is invalid; spec.document.rules.0.effect: Invalid option (invalid_value); spec.document: expected an object (invalid_type)",
    );
    const candidate = await refusalOf(() =>
      atField("spec.rollout.candidate", () => Promise.reject(invalid())),
    );
    expect((candidate.details!.issues as Array<{ path: string }>).map((i) => i.path)).toEqual([
      "spec.rollout.candidate.rules.0.effect",
      "spec.rollout.candidate",
    ]);
  });

  it("leave every other answer as it was", async () => {
    const other = new CloudApiError(409, "DRAFT_EXISTS", "a draft exists", { issues: [{ path: "x" }] });
    expect(await refusalOf(() => atField("spec.document", () => Promise.reject(other)))).toBe(other);
    expect(await atField("spec.document", async () => 7)).toBe(7);
  });
});
