/**
 * The fuzz suite: generated hostile requests (test/fuzz/requests.ts) to
 * POST /v1/authorize, /mcp and a sample of Cloud API routes, on a real Cloud
 * API process, a real Gateway process and real PostgreSQL. Asserted for every
 * answer: no 5xx, every refusal in the spec's shape with a code of the catalog
 * (test/fuzz/answers.ts); and around every batch: the row counts of protected
 * actions, signed objects, receipts, events, usage, pending approvals, agents,
 * API keys and the audit log do not change (every request that could write is
 * one that must be refused).
 *
 * `make test` runs it bounded to about a minute; `make fuzz` runs it long
 * (FUZZ_RUNS, default 100000). The seed is printed first; FUZZ_SEED=<seed>
 * (and FUZZ_PATH from fast-check's report) replays a failure.
 */
import { randomInt } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { answerProblem } from "./answers.js";
import { fuzzRequests, type FuzzRequest } from "./requests.js";
import { closeConnections, send } from "./send.js";
import { rowCounts, startFuzzWorld, type FuzzWorld } from "./world.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 1200);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : randomInt(2 ** 31);
const PATH = process.env.FUZZ_PATH || undefined;
/** Requests sent at once: one fast-check run is one batch. */
const BATCH = 24;
/** Gateway keys and sessions to spread the requests over, so rate limits leave room for the volume. */
const CREDENTIALS = RUNS > 5000 ? 48 : 8;

let db: TestDatabase;
let w: FuzzWorld;

beforeAll(async () => {
  db = await createTestDatabase();
  w = await startFuzzWorld(db.pool, db.url, { credentials: CREDENTIALS });
}, 180_000);
afterAll(async () => {
  closeConnections();
  await w?.stop();
  await db?.drop();
});

interface Figures {
  requests: number;
  fiveXx: number;
  strayRecords: number;
  byRoute: Map<string, Map<string, number>>;
  problems: string[];
}

function count(f: Figures, r: FuzzRequest, status: number, code: string) {
  const route = f.byRoute.get(r.route) ?? new Map<string, number>();
  const k = `${status} ${code}`;
  route.set(k, (route.get(k) ?? 0) + 1);
  f.byRoute.set(r.route, route);
}

const codeOf = (text: string): string => {
  try {
    const b = JSON.parse(text);
    return (
      b?.code ?? b?.error?.code ?? b?.result?.structuredContent?.service?.code ?? (b?.result ? "result" : "")
    );
  } catch {
    return "";
  }
};

function report(f: Figures, ms: number): string {
  const lines = [
    `fuzz: seed ${SEED}: ${f.requests} requests in ${(ms / 1000).toFixed(1)} s (${Math.round((f.requests * 1000) / ms)}/s), ${f.fiveXx} answered 5xx, ${f.strayRecords} stray records`,
  ];
  for (const [route, codes] of [...f.byRoute].sort()) {
    lines.push(
      `  ${route}: ${[...codes]
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => `${k} ×${n}`)
        .join(", ")}`,
    );
  }
  return lines.join("\n");
}

describe("fuzz: hostile requests to the Gateway and the Cloud API", () => {
  it(
    "no 5xx, every refusal in the spec's shape, nothing recorded for refused requests",
    async () => {
      console.log(
        `fuzz: seed ${SEED}, ${RUNS} requests in batches of ${BATCH} (replay with FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS})`,
      );
      const figures: Figures = { requests: 0, fiveXx: 0, strayRecords: 0, byRoute: new Map(), problems: [] };
      const started = Date.now();
      const baseOf = (r: FuzzRequest) => (r.target === "api" ? w.apiUrl : w.gatewayUrl);
      try {
        await fc.assert(
          fc.asyncProperty(
            fc.array(fuzzRequests(w), { minLength: BATCH, maxLength: BATCH }),
            async (batch) => {
              const before = await rowCounts(db.pool, w.world.organizationId);
              const answers = await Promise.all(batch.map((r) => send(baseOf(r), r)));
              const problems: string[] = [];
              batch.forEach((r, i) => {
                const a = answers[i]!;
                if (++figures.requests % 10_000 === 0)
                  console.log(
                    `fuzz: ${figures.requests} requests, ${figures.fiveXx} 5xx, ${figures.strayRecords} stray records, ${Math.round((Date.now() - started) / 1000)} s`,
                  );
                if (a.status >= 500) figures.fiveXx++;
                count(figures, r, a.status, codeOf(a.text));
                const p = answerProblem(r, a);
                if (p)
                  problems.push(
                    `${r.method} ${r.path} [${r.poison}] → ${a.status}: ${p}\n    sent ${r.body?.subarray(0, 300).toString("latin1") ?? ""}\n    got ${a.text.slice(0, 300)}`,
                  );
              });
              const after = await rowCounts(db.pool, w.world.organizationId);
              const stray = Object.keys(after).reduce((n, k) => n + Math.abs(after[k]! - before[k]!), 0);
              if (stray) {
                figures.strayRecords += stray;
                problems.push(
                  `rows changed: ${JSON.stringify(before)} → ${JSON.stringify(after)}; batch: ${batch.map((r) => `${r.route} [${r.poison}]`).join("; ")}`,
                );
              }
              if (problems.length) {
                figures.problems.push(...problems);
                throw new Error(problems.join("\n"));
              }
            },
          ),
          {
            numRuns: Math.ceil(RUNS / BATCH),
            seed: SEED,
            path: PATH,
            endOnFailure: process.env.FUZZ_SHRINK !== "1",
          },
        );
      } finally {
        console.log(report(figures, Date.now() - started));
        if (figures.fiveXx) console.log(w.output().slice(-4000));
      }
      expect(figures.fiveXx).toBe(0);
      expect(figures.strayRecords).toBe(0);
    },
    120_000 + RUNS * 40,
  );
});
