/**
 * Schemathesis (PyPI, test/requirements.txt) against the served OpenAPI
 * document of a real Cloud API process on a real PostgreSQL (the fuzz suite's
 * world: test/fuzz/world.ts, which also starts a real Gateway). Two runs, each
 * with a bounded number of generated requests per operation:
 *
 * - as the organization's owner signed in (session cookie, csrf header and the
 *   dashboard's Origin), with only invalid requests (`--mode negative`): every
 *   one must be refused, and the row counts the fuzz suite watches must not
 *   move (nothing changed by a refused request);
 * - with a management key of every scope (made through the API), valid
 *   requests (`--mode positive`): they may change things, so no count is checked;
 * - the Gateway's document (GET {gateway}/openapi.json, gateway/src/openapi)
 *   with a gateway key, invalid requests only, and again nothing changed.
 *
 * Both assert the checks below with zero failures in schemathesis's JUnit
 * report: no 5xx, statuses, content types, headers and bodies as documented.
 * docs/openapi.md says which checks are left out and why.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scopes } from "../../protocol/src/wire/index.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { DASHBOARD_ORIGIN, rowCounts, startFuzzWorld, type FuzzWorld } from "../fuzz/world.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const SCHEMATHESIS = join(repo, ".cache/python-venv/bin/schemathesis");
/** Generated requests per operation and phase; SCHEMATHESIS_EXAMPLES raises it for a longer run. */
const EXAMPLES = Number(process.env.SCHEMATHESIS_EXAMPLES ?? 2);
const CHECKS = [
  "not_a_server_error",
  "status_code_conformance",
  "content_type_conformance",
  "response_headers_conformance",
  "response_schema_conformance",
];

let db: TestDatabase;
let w: FuzzWorld;
let managementKey: string;
let reports: string;

beforeAll(async () => {
  db = await createTestDatabase();
  w = await startFuzzWorld(db.pool, db.url, { credentials: 1 });
  // The management key, made as its owner makes one: through the API, signed in.
  const created = await fetch(`${w.apiUrl}/api/v1/orgs/${w.world.organizationId}/api-keys`, {
    method: "POST",
    headers: { ...sessionHeaders(), "content-type": "application/json" },
    body: JSON.stringify({ kind: "management", name: "schemathesis", scopes: [...scopes] }),
  });
  if (created.status !== 201) throw new Error(`api key: ${created.status} ${await created.text()}`);
  managementKey = ((await created.json()) as { secret: string }).secret;
  reports = mkdtempSync(join(tmpdir(), "countersign-schemathesis-"));
}, 180_000);
afterAll(async () => {
  await w?.stop();
  await db?.drop();
  if (reports) rmSync(reports, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  output: string;
  junit: string;
}

function schemathesis(
  name: string,
  document: string,
  args: string[],
  headers: Record<string, string>,
): Promise<Run> {
  const junit = join(reports, `${name}.xml`);
  const argv = [
    "run",
    document,
    "--checks",
    CHECKS.join(","),
    "--max-examples",
    String(EXAMPLES),
    "--phases",
    "coverage,fuzzing",
    // One worker: Python 3.11's compiler fails in threads under hypothesis ("AST constructor recursion depth mismatch").
    "--workers",
    "1",
    "--seed",
    String(Date.now() % 2 ** 31),
    "--report",
    "junit",
    "--report-junit-path",
    junit,
    "--output-truncate",
    "false",
    ...Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}: ${v}`]),
    ...args,
  ];
  return new Promise((resolve) => {
    // cwd in the run's temporary folder: schemathesis keeps its example database in ./.schemathesis,
    // which must not land in the repository.
    const child = spawn(SCHEMATHESIS, argv, {
      cwd: reports,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    });
    let output = "";
    child.stdout.on("data", (c) => (output += c));
    child.stderr.on("data", (c) => (output += c));
    child.once("close", (code) => {
      const report = existsSync(junit) ? readFileSync(junit, "utf8") : "";
      resolve({ code, output, junit: report });
    });
  });
}

/** The failures and errors of a JUnit report, and how many test cases it has. */
function junitFigures(xml: string) {
  const cases = (xml.match(/<testcase\b/g) ?? []).length;
  const failures = (xml.match(/<failure\b/g) ?? []).length;
  const errors = (xml.match(/<error\b/g) ?? []).length;
  return { cases, failures, errors };
}

const cloudApiDocument = () => `${w.apiUrl}/api/v1/openapi.json`;

/** The session headers, as the dashboard sends them; each run comes from its own client address. */
const sessionHeaders = () => ({
  cookie: w.ownerSessions[0]!.cookie,
  "x-service-csrf": w.ownerSessions[0]!.csrf,
  origin: DASHBOARD_ORIGIN,
  "x-forwarded-for": "10.77.0.1",
});

/** Zero failures and errors in the JUnit report of a run that tested at least `atLeast` operations. */
function expectClean(run: Run, atLeast: number) {
  const figures = junitFigures(run.junit);
  expect(figures.cases, run.output).toBeGreaterThanOrEqual(atLeast);
  expect({ ...figures, code: run.code }, run.output).toEqual({ ...figures, failures: 0, errors: 0, code: 0 });
}

describe("schemathesis against the served OpenAPI documents", () => {
  it("signed in, and at the Gateway with a gateway key: every invalid request is refused as documented, and changes nothing", async () => {
    const before = await rowCounts(db.pool, w.world.organizationId);
    // Two processes at once (one worker each): the Cloud API's and the Gateway's documents.
    const [session, gateway] = await Promise.all([
      // Not signing out or deleting the account: with the cookie a fixed header, "without the cookie"
      // would still send it, and the rest of the run would be signed out. Not buying a plan: this
      // installation has no billing, so checkout and portal answer 503 by design (docs/billing.md).
      schemathesis(
        "session",
        cloudApiDocument(),
        [
          "--mode",
          "negative",
          ...[
            "post_auth_signout",
            "delete_me",
            "post_orgs_billing_checkout",
            "post_orgs_billing_portal",
          ].flatMap((id) => ["--exclude-operation-id", id]),
        ],
        sessionHeaders(),
      ),
      schemathesis("gateway", `${w.gatewayUrl}/openapi.json`, ["--mode", "negative"], {
        authorization: `Bearer ${w.gatewayKeys[0]}`,
      }),
    ]);
    expectClean(session, 105);
    expectClean(gateway, 1);
    expect(await rowCounts(db.pool, w.world.organizationId)).toEqual(before);
  }, 420_000);

  it("with a management key: valid requests answered as documented", async () => {
    const run = await schemathesis("key", cloudApiDocument(), ["--mode", "positive"], {
      authorization: `Bearer ${managementKey}`,
      "x-forwarded-for": "10.77.0.2",
    });
    expectClean(run, 100);
  }, 420_000);
});
