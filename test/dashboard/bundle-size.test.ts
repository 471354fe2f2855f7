/**
 * The dashboard loads fast enough: a production build (made here, into a temporary folder, so the
 * dashboard/dist the other tests serve is untouched) keeps its first load under a budget, and the
 * heavy parts stay out of it, loaded only by the pages that need them: the policy pages (CodeMirror
 * and the policy engine), the API reference (Scalar's viewer) and the charts (recharts). A size
 * budget, not a timing: the same build always weighs the same. docs/dashboard.md "Design system"
 * has the numbers (scripts/dashboard-bundle-size.ts prints them).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildInto, measure, type BundleReport } from "../../scripts/dashboard-bundle-size.js";

/** gzip bytes of everything the first page load fetches (scripts and stylesheet; the font comes after). */
const FIRST_LOAD_BUDGET = 350_000;

/** Text each heavy library's code keeps once minified (class names it writes into the page). */
const heavy = {
  CodeMirror: "cm-content",
  "Scalar's API reference viewer": "scalar-app",
  recharts: "recharts-",
};

let dir: string;
let report: BundleReport;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "countersign-bundle-"));
  buildInto(dir);
  report = measure(dir);
}, 240_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the dashboard's bundle", () => {
  it("keeps the first load under its budget", () => {
    expect(report.initial.files.some((f) => f.endsWith(".css"))).toBe(true);
    expect(report.initial.gzip).toBeGreaterThan(0);
    expect(report.initial.gzip).toBeLessThanOrEqual(FIRST_LOAD_BUDGET);
  });

  it("loads the policy pages, the API reference and the charts only when they are opened", () => {
    const lazy = report.lazy.map((l) => l.name);
    expect(lazy).toEqual(expect.arrayContaining(["PoliciesPage", "PolicyPage", "ApiReferencePage"]));
    expect(lazy.some((name) => name.endsWith("ReportCharts"))).toBe(true);
    for (const name of ["PolicyPage", "ApiReferencePage", "ReportCharts"])
      expect(
        report.initial.files.some((f) => f.startsWith(`${name}-`)),
        name,
      ).toBe(false);
  });

  it("keeps CodeMirror, the API reference viewer and the charts' library out of the first load", () => {
    const firstLoad = report.initial.files
      .filter((f) => f.endsWith(".js"))
      .map((f) => readFileSync(join(dir, "assets", f), "utf8"));
    for (const [library, marker] of Object.entries(heavy))
      expect(
        firstLoad.some((code) => code.includes(marker)),
        `${library} in the first load`,
      ).toBe(false);
    // The markers are real: the lazily loaded pages do carry the editor, the viewer and the charts.
    const lazyCode = report.lazy
      .flatMap((l) => l.size.files)
      .filter((f) => f.endsWith(".js"))
      .map((f) => readFileSync(join(dir, "assets", f), "utf8"))
      .join("\n");
    expect(lazyCode).toContain(heavy.CodeMirror);
    expect(lazyCode).toContain(heavy["Scalar's API reference viewer"]);
    expect(lazyCode).toContain(heavy.recharts);
  });
});
