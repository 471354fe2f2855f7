/**
 * The output schema tools/list answers (issue 40): the declared schema still
 * decides what an allowed call's structured content may be, and a refusal's
 * structured content (SPEC 4.2) passes too, checked with the validators the
 * MCP clients use: Ajv's draft-07 class (the TypeScript SDK v1's default) and
 * its 2020-12 class (the v2 client's).
 */
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { refusalResult } from "./results.js";
import { listedOutputSchema } from "./output-schema.js";

type Schema = Record<string, unknown>;

const validators = [
  [
    "Ajv draft-07 (TypeScript SDK v1)",
    () => new Ajv({ strict: false, validateSchema: false, allErrors: true }),
  ],
  ["Ajv 2020-12 (v2 client)", () => new Ajv2020({ strict: false, validateSchema: false, allErrors: true })],
] as const;

/** Real refusals as the Gateway answers them: denied, held (with its extra members and policy explanation), failed. */
const refusals = [
  refusalResult("POLICY_DENIED", "the policy denies this call", {
    protected_action_id: "0b7f3c52-1d1e-4c3a-9d57-7f0f6c1c2a10",
  }).structuredContent,
  refusalResult(
    "APPROVAL_PENDING",
    "waiting for approval",
    {
      protected_action_id: "5a1d6c1e-8e0b-4f0e-b7a4-2f3f1c9d8e21",
      approval_request_id: "9c2e4b7a-3f61-4d2b-8a0e-6b5c4d3e2f10",
      expires_at: "2026-11-27T15:00:00.000Z",
    },
    {
      message: "refunds above 100 need a person",
      schema: "service.cloud/agent-explanation@1",
      disclosure: "rule",
    },
  ).structuredContent,
  refusalResult("GATEWAY_BUSY", "try again").structuredContent,
];

function check(declared: Schema, valid: unknown[], invalid: unknown[]) {
  const listed = listedOutputSchema(declared);
  for (const [, make] of validators) {
    const validate = make().compile(listed);
    for (const v of [...valid, ...refusals]) expect(validate(v), JSON.stringify(v)).toBe(true);
    for (const v of invalid) expect(validate(v), JSON.stringify(v)).toBe(false);
  }
  return listed;
}

describe("the listed output schema", () => {
  it("is the declared schema, intact, as the first branch of anyOf, and the refusal as the second", () => {
    const declared = {
      type: "object",
      properties: { order: { type: "string" }, found: { type: "boolean" } },
      required: ["order", "found"],
      additionalProperties: false,
    };
    const listed = check(
      declared,
      [{ order: "A-1", found: true }],
      [{ order: "A-1" }, { order: "A-1", found: true, extra: 1 }, { found: "yes", order: 1 }],
    );
    expect(listed.type).toBe("object");
    // What the wrapping is for: the declared schema alone refuses every refusal.
    for (const [, make] of validators)
      for (const r of refusals) expect(make().compile(declared)(r)).toBe(false);
    expect((listed.anyOf as Schema[])[0]).toEqual(declared);
    expect((listed.anyOf as Schema[])[1]).toMatchObject({ required: ["service"] });
  });

  it("admits a refusal only in the refusal's shape: status among the spec's, code and detail present", () => {
    const declared = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
    check(
      declared,
      [{ n: 1 }],
      [
        { service: { status: "denied", code: "POLICY_DENIED" } },
        { service: { status: "allowed", code: "X", detail: "y" } },
        { service: "denied" },
        { service: { status: "denied", code: "POLICY_DENIED", detail: "d" }, other: 1 },
      ],
    );
  });

  it("keeps a declared $schema in the first branch and writes it at the root", () => {
    // As the SDK's McpServer declares a zod output schema.
    const declared = {
      type: "object",
      $schema: "http://json-schema.org/draft-07/schema#",
      required: ["refunded"],
      properties: { refunded: { type: "boolean" } },
      additionalProperties: false,
    };
    const listed = check(declared, [{ refunded: true }], [{}, { refunded: true, extra: 1 }]);
    expect(listed.$schema).toBe(declared.$schema);
    expect((listed.anyOf as Schema[])[0]).toEqual(declared);
  });

  it("hoists $defs so the declared $refs still resolve from the root", () => {
    const declared = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        line: { $ref: "#/$defs/line" },
        lines: { type: "array", items: { $ref: "#/$defs/line" } },
      },
      required: ["line"],
      $defs: {
        line: {
          type: "object",
          properties: { sku: { type: "string" }, qty: { $ref: "#/$defs/qty" } },
          required: ["sku", "qty"],
        },
        qty: { type: "integer", minimum: 1 },
      },
    };
    const listed = check(
      declared,
      [{ line: { sku: "a", qty: 1 }, lines: [{ sku: "b", qty: 2 }] }],
      [{ line: { sku: "a", qty: 0 } }, { line: { sku: "a" } }, { lines: [] }],
    );
    const { $defs, ...rest } = declared;
    expect(listed).toEqual({
      $schema: declared.$schema,
      type: "object",
      anyOf: [rest, expect.anything()],
      $defs,
    });
  });

  it("hoists draft-07 definitions the same way", () => {
    const declared = {
      type: "object",
      properties: { amount: { $ref: "#/definitions/money" } },
      required: ["amount"],
      definitions: { money: { type: "number", exclusiveMinimum: 0 } },
    };
    const listed = check(declared, [{ amount: 3 }], [{ amount: 0 }, {}]);
    expect(listed.definitions).toEqual(declared.definitions);
    expect((listed.anyOf as Schema[])[0]).not.toHaveProperty("definitions");
  });

  it("moves other pointers into the declared schema (a recursive '#', '#/properties/…') under the first branch", () => {
    const declared = {
      type: "object",
      properties: {
        name: { type: "string" },
        alias: { $ref: "#/properties/name" },
        children: { type: "array", items: { $ref: "#" } },
        note: { const: { $ref: "#/not/a/reference" } },
      },
      required: ["name"],
    };
    const listed = check(
      declared,
      [{ name: "root", alias: "r", children: [{ name: "leaf", children: [] }] }],
      [
        { name: "root", alias: 1 },
        { name: "root", children: [{ alias: "no name" }] },
      ],
    );
    const branch = (listed.anyOf as Schema[])[0] as { properties: Record<string, Schema> };
    expect(branch.properties.alias).toEqual({ $ref: "#/anyOf/0/properties/name" });
    expect(branch.properties.children).toEqual({ type: "array", items: { $ref: "#/anyOf/0" } });
    // A const is data: a $ref inside it is not a reference and stays as declared.
    expect(branch.properties.note).toEqual(declared.properties.note);
  });

  it("embeds a declared schema with its own $id untouched: its $refs resolve inside it", () => {
    const declared = {
      $id: "https://orders.example/schemas/lookup.json",
      type: "object",
      properties: { order: { $ref: "#/$defs/order" } },
      required: ["order"],
      $defs: { order: { type: "string", pattern: "^A-" } },
    };
    const listed = check(declared, [{ order: "A-1" }], [{ order: "B-1" }, {}]);
    expect((listed.anyOf as Schema[])[0]).toEqual(declared);
    expect(listed).not.toHaveProperty("$defs");
    // Listed again (clients compile on every tools/list), the same $id in one validator is no conflict.
    for (const [, make] of validators) {
      const ajv = make();
      ajv.compile(listedOutputSchema(declared));
      expect(ajv.compile(listedOutputSchema(declared))({ order: "A-2" })).toBe(true);
    }
  });

  it("keeps a declared schema that already admits a refusal admitting it, and what it declared", () => {
    const declared = { type: "object", additionalProperties: true };
    const listed = check(declared, [{}, { anything: 1 }], [[], "text"]);
    expect((listed.anyOf as Schema[])[0]).toEqual(declared);
  });

  it("never changes the declaration it was given", () => {
    const declared = {
      type: "object",
      properties: { a: { $ref: "#/$defs/a" }, b: { $ref: "#/properties/a" } },
      $defs: { a: { type: "string" } },
    };
    const copy = structuredClone(declared);
    listedOutputSchema(declared);
    expect(declared).toEqual(copy);
  });
});
