import { describe, expect, it } from "vitest";
import { MAX_DECLARATION_MEMBER_BYTES, readToolDeclaration } from "./tool-declaration.js";

const full = {
  name: "lookup",
  description: "looks things up",
  inputSchema: { type: "object" },
  title: "Look up",
  icons: [{ src: "https://icons.example/lookup.png", mimeType: "image/png", sizes: ["48x48"] }],
  outputSchema: { type: "object", properties: { found: { type: "boolean" } }, required: ["found"] },
  // A hint MCP does not name (yet) is kept too: the member is what the server wrote.
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: true, "x-auditHint": "pci" },
  execution: { taskSupport: "forbidden" },
};

describe("readToolDeclaration", () => {
  it("keeps title, icons, outputSchema, annotations and execution exactly as declared, and nothing else", () => {
    expect(readToolDeclaration(full)).toEqual({
      title: full.title,
      icons: full.icons,
      outputSchema: full.outputSchema,
      annotations: full.annotations,
      execution: full.execution,
    });
  });

  it("is null for a tool that declares nothing beyond its name, description and input schema", () => {
    expect(readToolDeclaration({ name: "x", inputSchema: { type: "object" } })).toBeNull();
  });

  it("leaves out a member that is not what MCP defines, keeping the others", () => {
    expect(
      readToolDeclaration({
        ...full,
        outputSchema: { type: "array" },
        annotations: { readOnlyHint: "yes" },
        icons: [{ mimeType: "image/png" }],
        execution: { taskSupport: "sometimes" },
      }),
    ).toEqual({ title: full.title });
  });

  it("leaves out a member over 64 KiB as canonical JSON", () => {
    const big = "x".repeat(MAX_DECLARATION_MEMBER_BYTES);
    expect(
      readToolDeclaration({ ...full, outputSchema: { type: "object", description: big } }),
    ).not.toHaveProperty("outputSchema");
    expect(readToolDeclaration({ ...full, title: big })).not.toHaveProperty("title");
  });
});
