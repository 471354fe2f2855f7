import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root. */
export const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Builds what the bench's processes run as JavaScript, as in production: the Gateway
 * (gateway/dist, tsc -b) and the TypeScript client, which the sample upstream imports
 * (`@countersign/client/server`) as an npm package left external to its bundle. A clean
 * clone has neither built.
 */
export function buildBenchedPackages(): void {
  execFileSync("npx", ["tsc", "-b", "gateway", "clients/typescript"], { cwd: root, stdio: "inherit" });
}

/** Bundles test/bench/<name>.ts with esbuild into .cache/bench/<name>.mjs (npm packages stay external). */
export function bundle(name: string): string {
  const file = path.join(root, ".cache", "bench", `${name}.mjs`);
  execFileSync(
    "npx",
    [
      "esbuild",
      `test/bench/${name}.ts`,
      "--bundle",
      "--platform=node",
      "--format=esm",
      "--packages=external",
      `--outfile=${file}`,
      "--log-level=warning",
    ],
    { cwd: root, stdio: "inherit" },
  );
  return file;
}
