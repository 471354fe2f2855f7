/**
 * The figures issue 41 asks to compare before and after: where the codebase's boundaries leak.
 * Run: `npx tsx scripts/boundary-metrics.ts` (prints one line per figure; nothing is asserted here,
 * the rules that hold the boundaries are ESLint's and the tests').
 *
 * - casts: `x as T` and `<T>x` outside tests (`as const` is not a cast), in every package, and
 *   in the Cloud API's consumers (dashboard, operator, CLI) separately;
 * - inline wire types: object type literals given as a type argument (`get<{ agent: Agent }>()`)
 *   in the Cloud API's consumers, the shape of an answer declared where it is read;
 * - `.query(` outside store modules in the packages that use PostgreSQL (a store module is `store.ts`, `*-store.ts`, or under a
 *   `store/` folder; migrations, tests and test support do not count; scripts/source-files.ts,
 *   shared with test/architecture/sql-in-stores.test.ts);
 * - transactions and audit writes in route handlers (route files: `routes.ts`, `routes/*.ts`,
 *   `*-route.ts`, `route.ts`);
 * - import cycles: strongly connected components of more than one module in the graph of relative
 *   imports between non-test source files;
 * - folder cycles: the same over a package's top-level folders (`core/src/decision` with its
 *   subfolders): a folder imports another when one of its files imports, even for types only, a file
 *   of the other. Files directly in `src/` are left out: they are the package's composition root
 *   (start, server, context), which wires the folders and whose context type the folders take. This is the layering
 *   docs/architecture.md describes: two folders that import each other have no direction between them.
 */
import { readFileSync } from "node:fs";
import ts from "typescript";
import {
  allSourceFiles,
  importCycles,
  mustNotQuery,
  queryCalls,
  relativeImports,
  repositoryPath as rel,
  type ImportEdge,
} from "./source-files.js";

const consumers = ["dashboard/src", "operator/src", "clients/typescript/src/cli"];
const files = allSourceFiles();
const inConsumer = (f: string) => consumers.some((c) => rel(f).startsWith(c + "/"));
const isRoute = (f: string) => /(^|\/)routes?\.ts$|\/routes\/[^/]+\.ts$|-route\.ts$/.test(rel(f));

let casts = 0;
let consumerCasts = 0;
let inlineTypes = 0;
let queriesOutsideStores = 0;
const queryFiles = new Set<string>();
let handlerTransactions = 0;
let handlerAudits = 0;
const known = new Set(files);
const imports = new Map<string, ImportEdge[]>();

for (const file of files) {
  const text = readFileSync(file, "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node) => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
      const isConst = ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(sf) === "const";
      if (!isConst) {
        casts++;
        if (inConsumer(file)) consumerCasts++;
      }
    }
    if (inConsumer(file) && ts.isCallExpression(node) && node.typeArguments) {
      inlineTypes += node.typeArguments.filter(ts.isTypeLiteralNode).length;
    }
    if (ts.isCallExpression(node) && isRoute(file)) {
      const callee = node.expression.getText(sf);
      if (/(^|\.)(inTransaction|withTransaction)$/.test(callee)) handlerTransactions++;
      if (/(^|\.)audit$/.test(callee)) handlerAudits++;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  imports.set(file, relativeImports(file, sf, known));
  const queries = mustNotQuery(file) ? queryCalls(file, text) : 0;
  if (queries > 0) {
    queriesOutsideStores += queries;
    queryFiles.add(rel(file));
  }
}

const { files: cycles, folders: folderCycles } = importCycles(imports);

console.log(`source files                      ${files.length}`);
console.log(`casts (all packages)              ${casts}`);
console.log(`casts (dashboard, operator, CLI)  ${consumerCasts}`);
console.log(`inline answer types (same)        ${inlineTypes}`);
console.log(`.query( outside stores            ${queriesOutsideStores} in ${queryFiles.size} files`);
console.log(`transactions in route handlers    ${handlerTransactions}`);
console.log(`audit writes in route handlers    ${handlerAudits}`);
console.log(
  `import cycles (value imports)     ${cycles.length} (${cycles.reduce((n, c) => n + c.length, 0)} modules)`,
);
console.log(
  `folder cycles (all imports)       ${folderCycles.length} (${folderCycles.reduce((n, c) => n + c.length, 0)} folders)`,
);
if (process.argv.includes("--list")) {
  for (const c of cycles) console.log("  cycle: " + c.join(", "));
  for (const c of folderCycles) console.log("  folder cycle: " + c.join(", "));
  for (const f of [...queryFiles].sort()) console.log("  query outside store: " + f);
}
