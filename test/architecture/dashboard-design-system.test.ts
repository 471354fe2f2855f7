/**
 * The dashboard is built from its design system (docs/dashboard.md, "Design system"): every page
 * and component renders Mantine's components and the project's small components on top of them.
 * No source file under dashboard/src draws its own form controls, tables, dialogs or landmarks, or
 * styles itself with class names; the only stylesheet is the theme's small remainder (the skip
 * link, the code editor's frame, the fields' focus outline).
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const src = join(root, "dashboard/src");

function tsxFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsxFiles(join(dir, e.name)) : e.name.endsWith(".tsx") ? [join(dir, e.name)] : [],
  );
}

/** Hand-made elements a page must take from the design system instead, and class-name styling. */
const handMade: { what: string; pattern: RegExp }[] = [
  { what: "a raw <table>", pattern: /<table[\s>]/ },
  { what: "a raw <button>", pattern: /<button[\s>]/ },
  { what: "a raw <input>", pattern: /<input[\s>/]/ },
  { what: "a raw <select>", pattern: /<select[\s>]/ },
  { what: "a raw <textarea>", pattern: /<textarea[\s>]/ },
  { what: "a raw <dialog>", pattern: /<dialog[\s>]/ },
  { what: "its own <main> (the shell's AppShell.Main is the landmark)", pattern: /<main[\s>]/ },
  { what: "a className (styles come from the theme and component props)", pattern: /className=/ },
  { what: "window.confirm (a ConfirmDialog leads with the consequence)", pattern: /window\.confirm\(/ },
];

/** Where an exception is deliberate, with the reason. */
const allowed: Record<string, string[]> = {
  // The skip link and the code editor's frame are the two rules the theme keeps in styles.css.
  "app/Shell.tsx": ["a className (styles come from the theme and component props)"],
  "components/CodeEditor.tsx": ["a className (styles come from the theme and component props)"],
};

export function findings(file: string, text: string): string[] {
  const rel = relative(src, file);
  return handMade
    .filter(({ what, pattern }) => pattern.test(text) && !(allowed[rel] ?? []).includes(what))
    .map(({ what }) => `${rel}: ${what}`);
}

describe("the dashboard is built from its design system", () => {
  it("no page or component draws its own controls, tables, dialogs or landmarks, or uses class names", () => {
    const offenders = tsxFiles(src).flatMap((f) => findings(f, readFileSync(f, "utf8")));
    expect(offenders).toEqual([]);
  });

  it("finds a hand-made control, and none in a page built from Mantine", () => {
    expect(findings(join(src, "routes/x/Page.tsx"), '<button type="button">Go</button>')).toHaveLength(1);
    expect(findings(join(src, "routes/x/Page.tsx"), '<p className="muted">x</p>')).toHaveLength(1);
    expect(findings(join(src, "routes/x/Page.tsx"), "<Button onClick={go}>Go</Button>")).toEqual([]);
  });

  it("keeps only the theme's remainder in the stylesheet: no layout rules", () => {
    const css = readFileSync(join(src, "styles.css"), "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
    const selectors = [...css.matchAll(/([^{}]+)\{/g)].map((m) => m[1]!.trim()).sort();
    expect(selectors).toEqual([
      ".code-editor",
      ".mantine-Input-input:focus-visible",
      ".skip-link",
      ".skip-link:focus",
    ]);
  });
});
