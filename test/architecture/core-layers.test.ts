/**
 * Inside core/, the folders have one direction (docs/architecture.md, "Layers"): decision imports
 * actions and execution imports decision, never the reverse, and no folder reaches back into one
 * that imports it. The graph is scripts/source-files.ts's, the one scripts/boundary-metrics.ts
 * prints for the whole tree.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import {
  importCycles,
  relativeImports,
  repositoryRoot,
  sourceFiles,
  stronglyConnected,
  type ImportEdge,
} from "../../scripts/source-files.js";

const files = sourceFiles(join(repositoryRoot, "core/src"));
const known = new Set(files);
const imports = new Map<string, ImportEdge[]>(
  files.map((f) => [
    f,
    relativeImports(f, ts.createSourceFile(f, readFileSync(f, "utf8"), ts.ScriptTarget.Latest), known),
  ]),
);
const folderImports = (from: string) =>
  [...imports]
    .filter(([f]) => f.startsWith(join(repositoryRoot, from) + "/"))
    .flatMap(([, edges]) => edges.map((e) => e.target));

describe("core's folders have one direction", () => {
  it("no two folders of core import each other, directly or around a cycle, and no file cycle", () => {
    expect(importCycles(imports)).toEqual({ files: [], folders: [] });
  });

  it("decision imports actions, and execution imports decision (the direction the cycle was broken in)", () => {
    expect(folderImports("core/src/decision").some((t) => t.includes("/core/src/actions/"))).toBe(true);
    expect(folderImports("core/src/actions").some((t) => t.includes("/core/src/decision/"))).toBe(false);
    expect(folderImports("core/src/execution").some((t) => t.includes("/core/src/decision/"))).toBe(true);
    expect(folderImports("core/src/decision").some((t) => t.includes("/core/src/execution/"))).toBe(false);
  });

  it("finds a cycle when there is one", () => {
    const edges: Record<string, string[]> = { a: ["b"], b: ["c"], c: ["a"], d: ["a"] };
    expect(stronglyConnected(Object.keys(edges), (v) => edges[v] ?? [])).toEqual([["a", "b", "c"]]);
  });
});
