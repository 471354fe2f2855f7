/**
 * SQL only in store modules (docs/architecture.md, "SQL only in store modules"): in the packages
 * that use PostgreSQL, no production file outside a store module calls `.query(`. The definitions
 * are scripts/source-files.ts's, the ones scripts/boundary-metrics.ts counts with.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  allSourceFiles,
  mustNotQuery,
  queryCalls,
  repositoryPath,
  repositoryRoot,
} from "../../scripts/source-files.js";

/**
 * Files whose SQL has not moved into a store module yet (issue 41). The list only shrinks: a file
 * that no longer queries, or no longer exists, must leave it, and no file may join it.
 */
const pending: string[] = [
  "core/src/approvals/decide.ts",
  "core/src/execution/claim.ts",
  "core/src/execution/recover.ts",
  "core/src/identities/gateway.ts",
  "core/src/identities/personal.ts",
  "core/src/identities/principal.ts",
  "core/src/identities/stored.ts",
  "core/src/keys/authenticate.ts",
  "core/src/keys/insert.ts",
  "core/src/plans/usage-shards.ts",
  "gateway/src/instance.ts",
  "gateway/src/mcp/tools-list.ts",
  "local/src/database.ts",
  "local/src/demo/demo-file.ts",
  "local/src/demo/seed.ts",
];

const offenders = allSourceFiles()
  .filter((f) => mustNotQuery(f) && queryCalls(f) > 0)
  .map(repositoryPath)
  .sort();

describe("SQL only in store modules", () => {
  it("no production file outside a store module queries the database, but those still pending", () => {
    expect(offenders.filter((f) => !pending.includes(f))).toEqual([]);
  });

  it("the pending list only names files that still query (it only shrinks)", () => {
    const done = pending.filter((f) => !existsSync(join(repositoryRoot, f)) || !offenders.includes(f));
    expect(done).toEqual([]);
  });

  it("finds a query outside a store module, and none in a store module", () => {
    const text = "export const f = (db) => db.query('select 1');\n";
    expect(queryCalls("api/src/agents/routes.ts", text)).toBe(1);
    expect(mustNotQuery(join(repositoryRoot, "api/src/agents/routes.ts"))).toBe(true);
    expect(mustNotQuery(join(repositoryRoot, "api/src/agents/store.ts"))).toBe(false);
    expect(mustNotQuery(join(repositoryRoot, "api/src/policies/version-store.ts"))).toBe(false);
    expect(mustNotQuery(join(repositoryRoot, "core/src/store/pool.ts"))).toBe(false);
    // The dashboard's `.query(` builds TanStack queries: it has no database.
    expect(mustNotQuery(join(repositoryRoot, "dashboard/src/routes/actions/ActionPage.tsx"))).toBe(false);
  });
});
