import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// Built to static files (dist/) that the api serves on the dashboard origin; no dev server is needed
// to use it. JSX goes through Vite's own transform (React 19's automatic runtime), so no plugin.
export default defineConfig({
  root: here("."),
  oxc: { jsx: { runtime: "automatic", importSource: "react" } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
    // Scalar's API reference viewer is one chunk of about 1.2 MB, loaded only on its page.
    chunkSizeWarningLimit: 1400,
    rolldownOptions: {
      // React libraries mark modules "use client" for server components; a browser bundle ignores it.
      onwarn(warning, warn) {
        if (warning.code !== "MODULE_LEVEL_DIRECTIVE") warn(warning);
      },
    },
  },
  resolve: {
    alias: [
      // The protocol package's sources: the evidence code the servers and the CLI run.
      { find: /^@countersign\/protocol\/(.*)$/, replacement: here("../protocol/src/$1/index.ts") },
      // The one Cloud API client's sources (browser-safe).
      {
        find: /^@countersign\/client\/cloud$/,
        replacement: here("../clients/typescript/src/cloud/index.ts"),
      },
    ],
  },
});
