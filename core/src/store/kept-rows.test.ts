/**
 * The decision's rows point at organizations, agents, tools, gateway keys,
 * delegations and observe windows without foreign keys (migration 0019), and
 * a decision's objects, receipt and approval request at their protected
 * action likewise (migration 0025):
 * the product never deletes those rows, it disables, revokes or ends them.
 * This keeps it so: no production source may delete them.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const kept = [
  "organizations",
  "agents",
  "tools",
  "api_keys",
  "delegations",
  "observe_windows",
  "protected_actions",
];
const deleting = new RegExp(
  `\\b(delete\\s+from|truncate(\\s+table)?)\\s+(only\\s+)?(${kept.join("|")})\\b`,
  "i",
);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (name === "node_modules" || name === "dist") return [];
    if (statSync(full).isDirectory()) return sources(full);
    const production =
      /\.(ts|tsx|sql|py)$/.test(name) && !/\.test(-support)?\.tsx?$|^test_.*\.py$/.test(name);
    return production ? [full] : [];
  });
}

describe("rows the decision points at without foreign keys", () => {
  it("are never deleted by production code", () => {
    const dirs = ["core/src", "core/migrations", "api/src", "gateway/src", "operator/src", "local/src"];
    const offenders = dirs
      .flatMap((d) => sources(path.join(root, d)))
      .filter((f) => deleting.test(readFileSync(f, "utf8")))
      .map((f) => path.relative(root, f));
    expect(offenders).toEqual([]);
  });

  it("the check itself finds such a statement", () => {
    expect(deleting.test("await db.query('delete from agents where id = $1')")).toBe(true);
    expect(deleting.test("TRUNCATE TABLE organizations")).toBe(true);
    expect(deleting.test("delete from agent_keys")).toBe(false);
  });
});
