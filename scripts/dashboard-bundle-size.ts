/**
 * The dashboard's bundle, measured as a browser loads it: what the first page load fetches
 * (index.html's script, every module it imports statically, the stylesheet) and what each lazily
 * loaded page adds on top (the policy pages with the code editor and the policy engine, the API
 * reference viewer, the charts). Sizes are raw and gzip (level 9, as a server would send them).
 *
 *   npx tsx scripts/dashboard-bundle-size.ts            builds the dashboard into a temporary folder
 *   npx tsx scripts/dashboard-bundle-size.ts <dist>     measures a build already made
 *
 * The production build goes into its own folder, so dashboard/dist (which tests serve) is untouched.
 * test/dashboard/bundle-size.test.ts holds the first load to its budget with the same code.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const DASHBOARD = fileURLToPath(new URL("../dashboard", import.meta.url));

export interface Size {
  files: string[];
  raw: number;
  gzip: number;
}

export interface BundleReport {
  /** What the first page load fetches: the entry script, its static imports, the stylesheet. */
  initial: Size;
  /** Each module the first load imports lazily (a page or a chart), with what it adds to the first load. */
  lazy: { name: string; size: Size }[];
  /** Every file of the build, for the totals. */
  all: Size;
}

/** Imports a module makes when it runs (`from"./x.js"`, `import"./x.js"`) and when asked (`import("./x.js")`). */
function importsOf(code: string): { static: string[]; dynamic: string[] } {
  const staticRe = /(?:\bfrom\s*|\bimport\s*)["'`]\.\/([\w.-]+\.js)["'`]/g;
  const dynamicRe = /\bimport\(\s*["'`]\.\/([\w.-]+\.js)["'`]\s*\)/g;
  return {
    static: [...code.matchAll(staticRe)].map((m) => m[1]!),
    dynamic: [...code.matchAll(dynamicRe)].map((m) => m[1]!),
  };
}

/** "PolicyPage-aMl1Q7tu.js" → "PolicyPage": the module's name without the content hash. */
const stem = (file: string) => basename(file).replace(/-[\w-]{8}\.(js|css)$/, "");

export function measure(dist: string): BundleReport {
  const assets = join(dist, "assets");
  const names = readdirSync(assets);
  const bytes = new Map(names.map((n) => [n, readFileSync(join(assets, n))]));
  const sizeOf = (files: Iterable<string>): Size => {
    const list = [...new Set(files)].sort();
    return {
      files: list,
      raw: list.reduce((s, f) => s + bytes.get(f)!.length, 0),
      gzip: list.reduce((s, f) => s + gzipSync(bytes.get(f)!, { level: 9 }).length, 0),
    };
  };
  const graph = new Map(
    names.filter((n) => n.endsWith(".js")).map((n) => [n, importsOf(bytes.get(n)!.toString("utf8"))]),
  );
  const closure = (start: string[]): Set<string> => {
    const seen = new Set<string>();
    const next = [...start];
    while (next.length) {
      const f = next.pop()!;
      if (seen.has(f) || !graph.has(f)) continue;
      seen.add(f);
      next.push(...graph.get(f)!.static);
    }
    return seen;
  };

  const html = readFileSync(join(dist, "index.html"), "utf8");
  const referenced = (re: RegExp) => [...html.matchAll(re)].map((m) => basename(m[1]!));
  const entries = referenced(/<script[^>]*\bsrc="([^"]+\.js)"/g);
  const preloads = referenced(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+\.js)"/g);
  const styles = referenced(/<link[^>]*rel="stylesheet"[^>]*href="([^"]+\.css)"/g);
  const initialJs = closure([...entries, ...preloads]);
  const initial = sizeOf([...initialJs, ...styles]);

  // Each lazily loaded module with its static imports and its stylesheet (Vite names it after the
  // chunk), less what is loaded already. Pages are one level (the routes' React.lazy); a page's own lazy parts (the policy report's charts)
  // the second, each with what it adds to its page. The API reference's viewer fetches parts of its
  // own (drawers, modals, icons one by one) when asked: they are Scalar's, not listed one by one.
  const added = (entry: string, loaded: Set<string>): Size => {
    const js = [...closure([entry])].filter((f) => !loaded.has(f));
    const css = names.filter((n) => n.endsWith(".css") && stem(n) === stem(entry));
    return sizeOf([...js, ...css]);
  };
  const pages = [...new Set([...initialJs].flatMap((f) => graph.get(f)!.dynamic))].sort();
  const lazy: BundleReport["lazy"] = [];
  for (const page of pages) {
    lazy.push({ name: stem(page), size: added(page, initialJs) });
    if (stem(page) === "ApiReferencePage") continue;
    const withPage = new Set([...initialJs, ...closure([page])]);
    for (const part of [...new Set(graph.get(page)?.dynamic ?? [])].sort())
      lazy.push({ name: `${stem(page)} → ${stem(part)}`, size: added(part, withPage) });
  }
  return { initial, lazy, all: sizeOf(names.filter((n) => /\.(js|css)$/.test(n))) };
}

/** A production build of the dashboard into a new temporary folder (removed by the caller). */
export function buildInto(dir: string): void {
  execFileSync("npx", ["vite", "build", "--outDir", dir, "--emptyOutDir", "--logLevel", "error"], {
    cwd: DASHBOARD,
    stdio: ["ignore", "ignore", "inherit"],
    // A production build whatever the caller's environment (vitest sets NODE_ENV=test).
    env: { ...process.env, NODE_ENV: "production" },
  });
}

const kB = (n: number) => `${(n / 1000).toFixed(1)} kB`;

function print(report: BundleReport): void {
  const row = (name: string, s: Size) => `| ${name} | ${s.files.length} | ${kB(s.raw)} | ${kB(s.gzip)} |`;
  console.log("| what | files | raw | gzip |");
  console.log("| --- | ---: | ---: | ---: |");
  console.log(row("first load (entry, its static imports, stylesheet)", report.initial));
  for (const l of report.lazy) console.log(row(`lazily loaded: ${l.name}`, l.size));
  console.log(row("every script and stylesheet of the build", report.all));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const given = process.argv[2];
  const dir = given ?? mkdtempSync(join(tmpdir(), "countersign-dashboard-build-"));
  try {
    if (!given) buildInto(dir);
    print(measure(dir));
  } finally {
    if (!given) rmSync(dir, { recursive: true, force: true });
  }
}
