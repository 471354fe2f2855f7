/**
 * The dashboard's static build (dashboard/dist), made once before the tests when any of its
 * sources (or the protocol package or Cloud API client it bundles) is newer than the build; the browser tests load it
 * from the api exactly as `make run` and the image serve it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../../", import.meta.url));

function newest(dir: string): number {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

export default function setup() {
  const built = join(repo, "dashboard/dist/index.html");
  const sources = Math.max(
    newest(join(repo, "dashboard/src")),
    newest(join(repo, "protocol/src")),
    newest(join(repo, "clients/typescript/src/cloud")),
    statSync(join(repo, "dashboard/index.html")).mtimeMs,
    statSync(join(repo, "dashboard/vite.config.ts")).mtimeMs,
  );
  if (existsSync(built) && statSync(built).mtimeMs >= sources) return;
  execFileSync(
    process.execPath,
    [join(repo, "node_modules/vite/bin/vite.js"), "build", "--logLevel", "warn"],
    // vitest runs with NODE_ENV=test, which would give React's development build: the tests use the
    // production build people get.
    { cwd: join(repo, "dashboard"), stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } },
  );
}
