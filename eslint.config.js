import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** SQL that changes a protected action's state: only core/src/actions may write it (its transitions are guarded). */
const actionWrite = /update\s+protected_actions/i;
const actionWriteMessage =
  "Only core/src/actions changes a protected action: call one of its transitions (core/src/actions/index.ts).";

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
);
