/**
 * The definitions the boundary figures (scripts/boundary-metrics.ts) and the architecture tests
 * (test/architecture/) share, so that a figure and its check never count differently: which files
 * are production sources, which of them are store modules, and where a file runs SQL.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

export const repositoryRoot = resolve(dirname(new URL(import.meta.url).pathname), "..");

/** The TypeScript packages, each with its sources under `<package>/src`. */
export const packages = [
  "protocol",
  "core",
  "api",
  "gateway",
  "operator",
  "clients/typescript",
  "dashboard",
  "local",
];

/** The packages that talk to PostgreSQL, where the rule "SQL only in store modules" applies. */
export const databasePackages = ["core", "api", "gateway", "local"];

/** Whether a file runs SQL by rule: a source of a database package that is not a store module. */
export const mustNotQuery = (file: string) =>
  databasePackages.some((p) => repositoryPath(file).startsWith(`${p}/src/`)) && !isStore(file);

/** Tests, benchmarks and test support (`*.test-support.ts`) are not production sources. */
const notProduction = /\.(test|bench|spec|test-support)\.tsx?$/;

/** Every production TypeScript file under `dir` (absolute paths), without dist, node_modules or declarations. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist" || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(name) && !notProduction.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/** Every package's production sources. */
export function allSourceFiles(): string[] {
  return packages.flatMap((p) => sourceFiles(join(repositoryRoot, p, "src")));
}

/** A path relative to the repository root, with forward slashes. */
export const repositoryPath = (file: string) => relative(repositoryRoot, file).split("\\").join("/");

/**
 * A store module (docs/architecture.md, "SQL only in store modules"): `store.ts`, `*-store.ts`,
 * or any file under a `store/` folder (core's pool, migrations runner and statement helpers).
 */
export const isStore = (file: string) => /(^|\/)store\.ts$|-store\.ts$|\/store\//.test(repositoryPath(file));

/** `x.query(...)` calls in a source file: where it sends SQL to PostgreSQL. */
export function queryCalls(file: string, text = readFileSync(file, "utf8")): number {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  let count = 0;
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === "query"
    )
      count++;
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return count;
}

/** A relative import of one of `known` (absolute paths); `typeOnly`: it vanishes at run time. */
export interface ImportEdge {
  target: string;
  typeOnly: boolean;
}

/** The relative imports (and re-exports) of a parsed file that resolve to one of `known`. */
export function relativeImports(file: string, sf: ts.SourceFile, known: ReadonlySet<string>): ImportEdge[] {
  const out: ImportEdge[] = [];
  for (const node of sf.statements) {
    if (!(ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) || !node.moduleSpecifier) continue;
    const spec = (node.moduleSpecifier as ts.StringLiteral).text;
    if (!spec.startsWith(".")) continue;
    const typeOnly =
      (ts.isImportDeclaration(node) ? node.importClause?.isTypeOnly : node.isTypeOnly) ?? false;
    const target = resolve(dirname(file), spec).replace(/\.js$/, "");
    const found = [target + ".ts", target + ".tsx", join(target, "index.ts")].find((c) => known.has(c));
    if (found) out.push({ target: found, typeOnly });
  }
  return out;
}

/**
 * The package's top-level folder a file is in (`core/src/decision`, with its subfolders); null for
 * a file directly in `src/`, the package's composition root (start, server, context), which wires
 * the folders and whose context type the folders take.
 */
export function folderOf(file: string): string | null {
  const path = repositoryPath(file);
  if (/^(?:clients\/)?[^/]+\/src\/[^/]+\.tsx?$/.test(path)) return null;
  return path.replace(/^((?:clients\/)?[^/]+\/src)\/([^/]+)\/.*$/, "$1/$2");
}

/** Tarjan's strongly connected components of more than one node: the cycles of a graph. */
export function stronglyConnected(
  nodes: Iterable<string>,
  edges: (v: string) => Iterable<string>,
): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  function strongConnect(v: string) {
    indexOf.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges(v)) {
      if (!indexOf.has(w)) {
        strongConnect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  }
  for (const v of nodes) if (!indexOf.has(v)) strongConnect(v);
  return found;
}

/**
 * Import cycles given each file's imports: between files over value imports (type-only ones
 * vanish at run time), and between folders (`folderOf`) over every import, the layering
 * docs/architecture.md describes: two folders that import each other have no direction.
 */
export function importCycles(imports: ReadonlyMap<string, ImportEdge[]>): {
  files: string[][];
  folders: string[][];
} {
  const folderEdges = new Map<string, Set<string>>();
  for (const [file, edges] of imports) {
    const from = folderOf(file);
    for (const { target } of edges) {
      const to = folderOf(target);
      if (from === null || to === null || from === to) continue;
      if (!folderEdges.has(from)) folderEdges.set(from, new Set());
      folderEdges.get(from)!.add(to);
    }
  }
  return {
    files: stronglyConnected(imports.keys(), (v) =>
      (imports.get(v) ?? []).filter((e) => !e.typeOnly).map((e) => e.target),
    ).map((c) => c.map(repositoryPath)),
    folders: stronglyConnected(folderEdges.keys(), (v) => folderEdges.get(v) ?? []),
  };
}
