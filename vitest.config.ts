import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// Tests run against the TypeScript sources: `@countersign/<package>/<area>` maps to
// <package>/src/<area>/index.ts so no build is needed before `vitest`.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@countersign\/protocol$/, replacement: here("./protocol/src/index.ts") },
      { find: /^@countersign\/protocol\/(.*)$/, replacement: here("./protocol/src/$1/index.ts") },
      { find: /^@countersign\/core$/, replacement: here("./core/src/index.ts") },
      { find: /^@countersign\/core\/(.*)$/, replacement: here("./core/src/$1/index.ts") },
      { find: /^@countersign\/api$/, replacement: here("./api/src/index.ts") },
      { find: /^@countersign\/gateway$/, replacement: here("./gateway/src/index.ts") },
      { find: /^@countersign\/client$/, replacement: here("./clients/typescript/src/index.ts") },
      { find: /^@countersign\/client\/(.*)$/, replacement: here("./clients/typescript/src/$1/index.ts") },
    ],
  },
  test: {
    include: ["{protocol,core,api,gateway,operator,clients/typescript,local,test}/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    globalSetup: [here("./test/setup/postgres.global.ts"), here("./test/setup/dashboard.global.ts")],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    benchmark: { include: ["{protocol,core,api,gateway,clients/typescript}/**/*.bench.ts"] },
  },
});
