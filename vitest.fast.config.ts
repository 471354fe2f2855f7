import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

/**
 * `make test-fast`: the unit tests of the inner loop, the files that need no PostgreSQL, no
 * kube-apiserver, no helm, no browser, no Python and start no processes. A file is in unless its
 * text, or the text of a test-support file under test/ it imports (transitively), names one of those
 * (below): a new pure test joins by itself and a test that starts using a database leaves by itself.
 * There is no global PostgreSQL here: a file that still reaches for one fails loudly
 * (`inject("postgresUrl")` is undefined) rather than being skipped.
 */
const needsMore =
  /test\/setup\/database|createTestDatabase|postgresUrl|control-plane|ControlPlane|\bhelm\b|chromium|playwright|python|child_process|fixtures\/cli|start\w*Process\b/i;

/** The file's text and that of the test support it imports from test/, followed transitively. */
function textWithSupport(file: string, seen = new Set<string>()): string {
  if (seen.has(file)) return "";
  seen.add(file);
  const text = readFileSync(file, "utf8");
  const support = [...text.matchAll(/from "(\.{1,2}\/[^"]+)\.js"/g)]
    .map((m) => path.normalize(path.join(path.dirname(file), `${m[1]}.ts`)))
    .filter((dep) => dep.startsWith(`test${path.sep}`) && existsSync(dep));
  return [text, ...support.map((dep) => textWithSupport(dep, seen))].join("\n");
}

const roots = ["protocol", "core", "api", "gateway", "operator", "clients/typescript", "local", "test"];
const fast = roots.flatMap((root) =>
  readdirSync(root, { recursive: true, encoding: "utf8" })
    .map((name) => path.join(root, name))
    .filter((file) => file.endsWith(".test.ts") && !/(^|\/)(node_modules|dist)\//.test(file))
    .filter((file) => !needsMore.test(textWithSupport(file))),
);

export default defineConfig({
  ...base,
  test: { ...base.test, include: fast, globalSetup: [] },
});
