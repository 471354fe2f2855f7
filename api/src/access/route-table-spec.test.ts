/**
 * The route table against the spec's own text: every route of the tables of
 * SPEC 4.4 has a row with the same who and key (paths written `.../x` in the
 * spec are matched by their ending). Rows the spec does not list are the few
 * documented in docs/access.md.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { routeShape, routeTable } from "./route-table.js";
import type { RouteAccess } from "./types.js";

const spec = readFileSync(new URL("../../../docs/spec.md", import.meta.url), "utf8");
const section = spec.slice(spec.indexOf("### 4.4"), spec.indexOf("### 4.5"));

function whoOf(cell: string, method: string): string {
  const c = cell.toLowerCase();
  if (c.startsWith("members read; owner sets")) return method === "GET" ? "members" : "owner";
  if (c.startsWith("anyone") || c.startsWith("link holder")) return "anyone";
  if (c.startsWith("signed-in or management key")) return "signed-in-or-key";
  if (c.startsWith("signed-in")) return "signed-in";
  if (c.startsWith("yourself")) return "members";
  // The listed approvers always hold an approving role: policies name approvers by those roles only.
  if (c.startsWith("approvers listed")) return "approvers";
  if (c.startsWith("gateway keys: writers") || c.startsWith("same as creating")) return "writers";
  for (const g of ["members", "writers", "approvers", "admins", "owner"]) if (c.startsWith(g)) return g;
  throw new Error(`unknown who: ${cell}`);
}

function keyOf(cell: string, method: string): string {
  // "no (a key with tools:write passes the scope check and then gets 403 ADMIN_REQUIRED)"
  const after = /^no \(a key with (\S+) passes the scope check and then gets 403 (\w+)\)/.exec(cell);
  if (after) return `${after[1]}+${after[2]}`;
  if (cell.startsWith("read (GET only)")) return method === "GET" ? "read" : "no";
  if (cell.startsWith("any scope")) return "any";
  return cell.split(/[ ;(]/)[0]!;
}

interface SpecRoute {
  method: string;
  path: string;
  who: string;
  key: string;
}

const specRoutes: SpecRoute[] = section
  .split("\n")
  .filter((l) => /^\| (GET|POST|PUT|PATCH|DELETE)/.test(l))
  .flatMap((line) => {
    const [paths, who, key] = line
      .split("|")
      .slice(1, 4)
      .map((s) => s.trim()) as [string, string, string];
    const out: SpecRoute[] = [];
    for (const m of paths.matchAll(/((?:(?:GET|POST|PUT|PATCH|DELETE)(?:, )?)+) (\S+?)(?=[,;\s]|$)/g)) {
      for (const method of m[1]!.split(", ").filter(Boolean)) {
        out.push({
          method,
          path: m[2]!.replace(/<[^>]+>/g, ":x"),
          who: whoOf(who, method),
          key: keyOf(key, method),
        });
      }
    }
    return out;
  });

function rowFor(r: SpecRoute): RouteAccess[] {
  const shape = routeShape(r.method, r.path.replace(/^\.\.\./, ""));
  return routeTable.filter((row) =>
    r.path.startsWith("...")
      ? routeShape(row.method, row.path).endsWith(shape.slice(r.method.length + 1)) && row.method === r.method
      : routeShape(row.method, row.path) === shape,
  );
}

describe("the route table against SPEC 4.4", () => {
  it("reads every route of the spec's tables", () => {
    expect(specRoutes.length).toBeGreaterThan(100);
  });

  it("has exactly one row per spec route, with the spec's who and key", () => {
    const problems: string[] = [];
    for (const r of specRoutes) {
      const rows = rowFor(r);
      if (rows.length !== 1) {
        problems.push(`${r.method} ${r.path}: ${rows.length} rows`);
        continue;
      }
      const row = rows[0]!;
      const key = row.keyRefusedAfterScope ? `${row.key}+${row.keyRefusedAfterScope}` : row.key;
      if (row.who !== r.who || key !== r.key)
        problems.push(`${r.method} ${r.path}: spec ${r.who}/${r.key}, table ${row.who}/${key}`);
    }
    expect(problems).toEqual([]);
  });

  it("lists no route beyond the spec's except the documented ones", () => {
    const extra = routeTable
      .filter((row) => !specRoutes.some((r) => rowFor(r).includes(row)))
      .map((r) => `${r.method} ${r.path}`);
    expect(extra.sort()).toEqual(
      [
        "DELETE /me",
        "PATCH /me",
        "POST /billing/stripe/events",
        "DELETE /orgs/:org_id/operator-bindings/:binding_id",
        "GET /openapi.json",
        "GET /orgs",
        "GET /orgs/:org_id/api-keys/:key_id",
        "GET /orgs/:org_id/operator-bindings",
        "GET /orgs/:org_id/policies/:policy_id/versions/:version_id",
        "GET /orgs/:org_id/policies/:policy_id/versions/:version_id/impact",
        "POST /orgs/:org_id/operator-bindings",
      ].sort(),
    );
  });
});
