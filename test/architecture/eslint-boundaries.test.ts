/**
 * The per-package import rules of eslint.config.js (docs/architecture.md, "Layers") fire on a
 * deliberate violation of each and stay quiet on an allowed import: ESLint's own Node API lints a
 * line of text as if it were a file at the given path, with the repository's configuration.
 */
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const eslint = new ESLint({ cwd: root });

/** The messages of no-restricted-imports for `source` imported from a file at `filePath`. */
async function restricted(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(`import { x } from "${source}";\nexport const y = x;\n`, {
    filePath,
  });
  return result!.messages.filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
}

const cases: { file: string; refused: string[]; allowed: string[] }[] = [
  {
    file: "protocol/src/wire/violation.ts",
    refused: ["@countersign/core/store", "@countersign/api", "@countersign/client/cloud"],
    allowed: ["zod", "./agents.js"],
  },
  {
    file: "core/src/decision/violation.ts",
    refused: ["@countersign/api", "@countersign/gateway", "@countersign/client", "../../../api/src/index.js"],
    allowed: ["@countersign/protocol/wire", "../store/index.js"],
  },
  {
    file: "api/src/agents/violation.ts",
    refused: ["@countersign/gateway", "@countersign/operator", "../../../gateway/src/index.js"],
    allowed: ["@countersign/core/store", "@countersign/protocol/wire"],
  },
  {
    file: "gateway/src/mcp/violation.ts",
    refused: ["@countersign/api", "@countersign/client/cloud"],
    allowed: ["@countersign/core/decision", "@countersign/protocol/errors"],
  },
  {
    file: "operator/src/reconcilers/violation.ts",
    refused: ["@countersign/core/store", "@countersign/api", "@countersign/gateway"],
    allowed: ["@countersign/client/cloud", "@countersign/protocol/wire"],
  },
  {
    file: "clients/typescript/src/cloud/violation.ts",
    refused: ["@countersign/core/keys", "@countersign/api", "../../../../core/src/keys/index.js"],
    allowed: ["@countersign/protocol/wire", "./client.js"],
  },
  {
    file: "dashboard/src/pages/violation.tsx",
    refused: ["@countersign/core/webhooks", "@countersign/api", "@countersign/gateway"],
    allowed: ["@countersign/client/cloud", "@countersign/protocol/evidence"],
  },
];

describe("ESLint's package boundaries", () => {
  for (const c of cases) {
    const pkg = c.file.split("/src/")[0];
    for (const source of c.refused) {
      it(`refuses ${source} in ${pkg}`, async () => {
        const messages = await restricted(c.file, source);
        expect(messages).toHaveLength(1);
        expect(messages[0]).toMatch(/docs\/architecture\.md|by its name/);
      });
    }
    for (const source of c.allowed) {
      it(`allows ${source} in ${pkg}`, async () => {
        expect(await restricted(c.file, source)).toEqual([]);
      });
    }
  }

  it("leaves tests free to start any package's process", async () => {
    expect(await restricted("api/src/agents/agents.test.ts", "@countersign/gateway")).toEqual([]);
    expect(await restricted("test/gateway/authorize.test.ts", "@countersign/api")).toEqual([]);
  });
});
