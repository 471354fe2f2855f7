/**
 * readResult by the Gateway's wire (protocol/src/wire/gateway): an answer the schemas allow is a
 * result; one they forbid (a member missing, of the wrong type or format) is NOT_A_SERVICE_RESULT,
 * never success; a member the client does not know is ignored. The answers a real Gateway gives
 * are checked in test/clients/authorize-action.test.ts and test/gateway/openapi.test.ts.
 */
import { describe, expect, it } from "vitest";
import { ServiceProtocolError } from "./errors.js";
import { readResult } from "./result.js";

const authorization = {
  allowed: true,
  status: "authorized",
  decision: "allow",
  execution: "caller",
  protected_action_id: "0b7f3c52-1d1e-4c3a-9d57-7f0f6c1c2a10",
  approval_request_id: null,
  expires_at: "2026-11-27T15:00:00.000Z",
  task_object_id: `ko_${"a1".repeat(32)}`,
  proposal_object_id: `ko_${"b2".repeat(32)}`,
  receipt_object_id: `ko_${"c3".repeat(32)}`,
  receipt_id: "5a1d6c1e-8e0b-4f0e-b7a4-2f3f1c9d8e21",
  arguments_digest: `sha256:${"d4".repeat(32)}`,
  policy: null,
  note: "perform it once",
};
const denial = {
  allowed: false,
  status: "denied",
  code: "POLICY_DENIED",
  detail: "the policy denies this call",
  protected_action_id: "0b7f3c52-1d1e-4c3a-9d57-7f0f6c1c2a10",
  policy: { schema: "service.cloud/agent-explanation@1", disclosure: "rule", message: "over the cap" },
  why: "Why: over the cap",
};

describe("readResult", () => {
  it("reads an authorization and a refusal the wire allows", () => {
    expect(readResult(authorization)).toMatchObject({
      allowed: true,
      protectedActionId: authorization.protected_action_id,
      receiptId: authorization.receipt_id,
      detail: "perform it once",
    });
    expect(readResult(denial)).toMatchObject({
      allowed: false,
      status: "denied",
      code: "POLICY_DENIED",
      policy: denial.policy,
      retryable: false,
    });
  });

  it("ignores a member it does not know", () => {
    expect(readResult({ ...authorization, added_later: 1 })).toEqual(readResult(authorization));
  });

  it.each([
    ["allowed true without its receipt", { ...authorization, receipt_id: undefined }],
    ["a protected action id that is not a UUID", { ...authorization, protected_action_id: "pa_1" }],
    ["an object id that is not one", { ...authorization, task_object_id: "ko_short" }],
    ["a time that is not one", { ...authorization, expires_at: "tomorrow" }],
    ["an observe policy of the wrong shape", { ...authorization, policy: { enforcement: "enforce" } }],
    ["a refusal without detail", { ...denial, detail: undefined }],
    ["a status the endpoint never answers", { ...denial, status: "replay" }],
    ["retryable that is not a boolean", { ...denial, retryable: "yes" }],
    ["an explanation without its schema", { ...denial, policy: { message: "x" } }],
  ])("refuses %s as NOT_A_SERVICE_RESULT, naming the member, never its value", (_why, body) => {
    let thrown: unknown;
    try {
      readResult(body);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ServiceProtocolError);
    if (!(thrown instanceof ServiceProtocolError)) return;
    expect(thrown.code).toBe("NOT_A_SERVICE_RESULT");
    expect(thrown.message).not.toMatch(/pa_1|tomorrow|yes/);
  });
});
