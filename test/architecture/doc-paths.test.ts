/**
 * Every repository path the documentation names exists: a backticked path that starts with a
 * top-level folder of the repository (`core/src/decision/record/store.ts`, `api/src/agents/`), and
 * every relative link target, in docs/*.md and README.md. A placeholder (`<resource>`) or a glob
 * (`*`) cannot be checked and is skipped; braces (`{a,b}.ts`) are expanded.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { repositoryRoot } from "../../scripts/source-files.js";

/** Top-level folders a path may start with; generated ones (.cache, .data, node_modules) are not the repository's. */
const topFolders = readdirSync(repositoryRoot).filter(
  (name) =>
    statSync(join(repositoryRoot, name)).isDirectory() &&
    ![".git", ".cache", ".data", "node_modules", ".hypothesis", ".schemathesis"].includes(name),
);
const startsInRepository = new RegExp(`^(${topFolders.map((f) => f.replace(/\./g, "\\.")).join("|")})/`);

/** `a/{b,c}.ts` → `a/b.ts`, `a/c.ts` (one level of braces, as the docs write them). */
function expand(path: string): string[] {
  const m = /^(.*?)\{([^{}]*)\}(.*)$/.exec(path);
  if (!m) return [path];
  return m[2]!.split(",").flatMap((part) => expand(`${m[1]}${part.trim()}${m[3]}`));
}

/** The repository paths one Markdown text names, as written. */
function namedPaths(markdown: string, docDir: string): string[] {
  const out: string[] = [];
  for (const [, code] of markdown.matchAll(/`([^`\n]+)`/g)) {
    const candidate = code!.trim().replace(/:\d+(-\d+)?$/, "");
    // A placeholder or glob cannot be checked; a build's output (`api/dist/main.js`) exists after a build.
    if (!startsInRepository.test(candidate) || /[<>*$\s]/.test(candidate) || /(^|\/)dist\//.test(candidate))
      continue;
    out.push(...expand(candidate));
  }
  for (const [, target] of markdown.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:|^#/i.test(target!)) continue; // a URL or an anchor on the same page
    const path = normalize(join(docDir, target!.replace(/#.*$/, "")));
    if (path.startsWith("..")) continue;
    out.push(path);
  }
  return out;
}

const documents = [
  ...readdirSync(join(repositoryRoot, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
  "README.md",
];

describe("paths named in the documentation", () => {
  for (const doc of documents) {
    it(`every path ${doc} names exists`, () => {
      const text = readFileSync(join(repositoryRoot, doc), "utf8");
      const missing = [...new Set(namedPaths(text, dirname(doc)))].filter(
        (p) => !existsSync(join(repositoryRoot, p)),
      );
      expect(missing).toEqual([]);
    });
  }

  it("finds backticked and linked paths, expands braces and skips placeholders", () => {
    const text =
      "`core/src/decision/record/store.ts`, `protocol/src/wire/{agents,members}.ts`, `api/src/<resource>/`, " +
      "`make test`, [spec](spec.md), [site](https://example.com), `core/src/nowhere.ts:12`";
    expect(namedPaths(text, "docs")).toEqual([
      "core/src/decision/record/store.ts",
      "protocol/src/wire/agents.ts",
      "protocol/src/wire/members.ts",
      "core/src/nowhere.ts",
      "docs/spec.md",
    ]);
  });
});
