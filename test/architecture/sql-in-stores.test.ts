/**
 * SQL only in store modules (docs/architecture.md, "SQL only in store modules"): in the packages
 * that use PostgreSQL, no production file outside a store module calls `.query(`. The definitions
 * are scripts/source-files.ts's, the ones scripts/boundary-metrics.ts counts with.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  allSourceFiles,
  mustNotQuery,
  queryCalls,
  repositoryPath,
  repositoryRoot,
} from "../../scripts/source-files.js";

const offenders = allSourceFiles()
  .filter((f) => mustNotQuery(f) && queryCalls(f) > 0)
  .map(repositoryPath)
  .sort();

describe("SQL only in store modules", () => {
  it("no production file outside a store module queries the database", () => {
    expect(offenders).toEqual([]);
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
