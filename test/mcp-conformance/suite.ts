/**
 * The official MCP conformance suite, run as its authors ship it: its CLI
 * (`conformance server --url …`), pinned by test/package.json —
 * `@modelcontextprotocol/conformance` 0.1.16 for 2025-11-25 and the alias
 * `mcp-conformance-next` (0.2.0-alpha.12) with `--requirements 2026-07-28`
 * for 2026-07-28. Each scenario writes `checks.json` in its own folder of the
 * output directory; a scenario passes when none of its checks is a FAILURE.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { startNodeProcess } from "../fixtures/node-process.js";

const cli = {
  "2025-11-25": fileURLToPath(
    new URL("../../node_modules/@modelcontextprotocol/conformance/dist/index.js", import.meta.url),
  ),
  "2026-07-28": fileURLToPath(
    new URL("../../node_modules/mcp-conformance-next/dist/index.js", import.meta.url),
  ),
} as const;
export type Revision = keyof typeof cli;

const checks = z.array(
  z.looseObject({ id: z.string(), status: z.string(), errorMessage: z.string().optional() }),
);

export interface ScenarioOutcome {
  scenario: string;
  passed: boolean;
  /** The ids of the failed checks. */
  failed: string[];
  /** The failed checks: id and message. */
  failures: string[];
}

export async function runConformance(revision: Revision, url: string): Promise<ScenarioOutcome[]> {
  const out = await mkdtemp(join(tmpdir(), `mcp-conformance-${revision}-`));
  try {
    const args = [cli[revision], "server", "--url", url, "-o", out];
    if (revision === "2026-07-28") args.push("--requirements", "2026-07-28");
    const run = startNodeProcess(args, { env: {} });
    // The CLI's exit code says whether anything failed; which scenarios did is read from the files.
    await run.exited;
    const outcomes: ScenarioOutcome[] = [];
    for (const dir of (await readdir(out)).sort()) {
      const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(dir)?.[1];
      if (!scenario) continue;
      const list = checks.parse(JSON.parse(await readFile(join(out, dir, "checks.json"), "utf8")));
      const failed = list.filter((c) => c.status === "FAILURE");
      outcomes.push({
        scenario,
        passed: failed.length === 0,
        failed: failed.map((c) => c.id),
        failures: failed.map((c) => `${c.id}: ${c.errorMessage ?? "(no message)"}`),
      });
    }
    if (outcomes.length === 0) throw new Error(`the suite reported no scenario:\n${run.output()}`);
    return outcomes;
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}
