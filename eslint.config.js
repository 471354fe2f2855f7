import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** SQL that changes a protected action's state: only core/src/actions may write it (its transitions are guarded). */
const actionWrite = /update\s+protected_actions/i;
const actionWriteMessage =
  "Only core/src/actions changes a protected action: call one of its transitions (core/src/actions/index.ts).";

/**
 * Which of our packages each package may import (docs/architecture.md, "Layers"): protocol nothing
 * of ours; core only protocol; api and gateway core and protocol, never each other; the operator,
 * the clients and the dashboard only protocol and the client. `local/` (make run) composes api and
 * gateway in one process and is not restricted; tests are exempt, they start real processes.
 */
const ourPackages = [
  "protocol",
  "core",
  "api",
  "gateway",
  "operator",
  "client",
  "dashboard",
  "local",
  "test",
];
function importsOnly(name, allowed) {
  const others = ourPackages.filter((p) => !allowed.includes(p) && p !== name);
  return {
    files: [`${name === "client" ? "clients/typescript" : name}/src/**/*.{ts,tsx}`],
    ignores: ["**/*.test.ts", "**/*.test-support.ts", "**/*.bench.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: `^@countersign/(${others.join("|")})(/|$)`,
              message: `${name} may import only ${allowed.length > 0 ? allowed.join(" and ") : "nothing of ours"} (docs/architecture.md, "Layers").`,
            },
            {
              regex:
                "^(\\.\\./)+(protocol|core|api|gateway|operator|clients|dashboard|local|test)/(src|typescript)(/|$)",
              message:
                "Import another package by its name (@countersign/...), never by a relative path into its tree.",
            },
          ],
        },
      ],
    },
  };
}

export default tseslint.config(
  {
    ignores: ["**/dist/**", "**/node_modules/**", ".data/**", ".cache/**", "charts/**", "clients/python/**"],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["**/*.ts", "**/*.js"],
    ignores: ["core/src/actions/**", "**/*.test.ts", "test/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        { selector: `Literal[value=${actionWrite}]`, message: actionWriteMessage },
        { selector: `TemplateElement[value.raw=${actionWrite}]`, message: actionWriteMessage },
      ],
    },
  },
  importsOnly("protocol", []),
  importsOnly("core", ["protocol"]),
  importsOnly("api", ["protocol", "core"]),
  importsOnly("gateway", ["protocol", "core"]),
  importsOnly("operator", ["protocol", "client"]),
  importsOnly("client", ["protocol"]),
  importsOnly("dashboard", ["protocol", "client"]),
);
