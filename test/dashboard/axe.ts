/**
 * An accessibility check of the page as it is now, with axe-core run inside the page. Its source is
 * evaluated through the DevTools protocol, which the dashboard's Content-Security-Policy (scripts from
 * the origin only) does not apply to, so the page under test is served exactly as people get it.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

type Impact = "minor" | "moderate" | "serious" | "critical";

/**
 * Every violation axe-core finds, of the impacts asked for (all four by default). A colour-contrast
 * failure names the colours and the ratio it measured, so a failure in one theme says what to change.
 */
export async function violations(
  page: Page,
  impacts: readonly Impact[] = ["minor", "moderate", "serious", "critical"],
): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run: (c: Document, o: object) => Promise<{ violations: unknown[] }> } }
    ).axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations as {
      id: string;
      impact: string | null;
      help: string;
      nodes: {
        target: unknown[];
        any: { data?: { fgColor?: string; bgColor?: string; contrastRatio?: number } }[];
      }[];
    }[];
  });
  return found
    .filter((v) => impacts.includes(v.impact as Impact))
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => {
        const target = n.target.map(String).join(" ");
        const contrast = n.any.find((c) => c.data?.contrastRatio !== undefined)?.data;
        return contrast
          ? `${target} (${contrast.fgColor} on ${contrast.bgColor}: ${contrast.contrastRatio}:1)`
          : target;
      }),
    }));
}

/** The violations of impact serious or critical (an empty list when the page passes). */
export const seriousViolations = (page: Page): Promise<AxeViolation[]> =>
  violations(page, ["serious", "critical"]);
