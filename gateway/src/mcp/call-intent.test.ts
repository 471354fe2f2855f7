import { describe, expect, it } from "vitest";
import type { DecisionContext } from "@countersign/core/decision";
import { callIntentOf, contextFor } from "./call-intent.js";

const call = (params: unknown, method = "tools/call") => ({ jsonrpc: "2.0", id: 1, method, params });

describe("the intent of a /mcp POST", () => {
  it("is the tool and idempotency key of one tools/call", () => {
    expect(callIntentOf(call({ name: "refund", arguments: {} }))).toEqual({
      tool: "refund",
      idempotencyKey: null,
    });
    expect(callIntentOf(call({ name: "refund", _meta: { "service/idempotency-key": "k-1" } }))).toEqual({
      tool: "refund",
      idempotencyKey: "k-1",
    });
  });

  it("is null for anything the SDK answers on its own", () => {
    expect(callIntentOf([call({ name: "refund" })])).toBeNull();
    expect(callIntentOf(call({ name: "refund" }, "tools/list"))).toBeNull();
    expect(callIntentOf(call({ name: 7 }))).toBeNull();
    expect(callIntentOf(call(null))).toBeNull();
    expect(callIntentOf("tools/call")).toBeNull();
  });

  it("has no idempotency key when the call's metadata is refused (the call is refused before deciding)", () => {
    expect(callIntentOf(call({ name: "refund", _meta: { "service/idempotency-key": "" } }))).toEqual({
      tool: "refund",
      idempotencyKey: null,
    });
  });
});

describe("the admitted context", () => {
  const context = { existingActionId: null } as unknown as DecisionContext;
  const admitted = { intent: { tool: "refund", idempotencyKey: "k-1" }, context };

  it("serves only the call it was read for", () => {
    expect(contextFor(admitted, "refund", "k-1")).toBe(context);
    expect(contextFor(admitted, "refund", null)).toBeUndefined();
    expect(contextFor(admitted, "refund", "k-2")).toBeUndefined();
    expect(contextFor(admitted, "other", "k-1")).toBeUndefined();
    expect(contextFor(undefined, "refund", "k-1")).toBeUndefined();
  });
});
