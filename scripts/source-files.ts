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
