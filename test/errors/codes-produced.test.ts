/**
 * The spec's error catalogs (protocol/src/errors: SPEC 7.2's Cloud API codes and SPEC 7.3's
 * Gateway codes) against the codes the code can actually send. A catalogued code that no path
 * produces fails here unless docs/errors.md's allow-list names it with a reason, and a code on
 * that list that the code does produce fails too, so the list cannot outlive its reason.
 *
 * "Produces" is read from the source, not guessed from a test run: a Cloud API code is produced
 * where a `ServiceError` is built with it (the one error type every Cloud API answer goes
 * through, docs/errors.md); a Gateway code is produced where core or the Gateway spells it (the
 * refusal, verdict and result builders take the code as a literal of the catalog's type).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { cloudApiCodes, gatewayCodes } from "../../protocol/src/errors/index.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));

/** Non-test TypeScript sources under the given folders of the repository. */
function sources(...roots: string[]): Array<{ file: string; text: string }> {
  return roots.flatMap((root) =>
    readdirSync(path.join(repo, root), { recursive: true, encoding: "utf8" })
      .filter((name) => name.endsWith(".ts") && !/\.test\.ts$|test-support|\.bench\.ts$|\.d\.ts$/.test(name))
      .map((name) => path.join(root, name))
      // The catalogs themselves name every code; they produce none.
      .filter((file) => !file.startsWith(path.join("protocol", "src", "errors")))
      .map((file) => ({ file, text: readFileSync(path.join(repo, file), "utf8") })),
  );
}

/** Every code named in the first argument of a `ServiceError(...)` (a literal, or a conditional between literals). */
function cloudApiCodesProduced(): Map<string, string[]> {
  const produced = new Map<string, string[]>();
  for (const { file, text } of sources("api/src", "core/src", "gateway/src", "local/src", "protocol/src")) {
    for (const m of text.matchAll(/ServiceError\(\s*([^,()]*?),/g)) {
      for (const [, code] of m[1]!.matchAll(/"([A-Z][A-Z0-9_]+)"/g)) {
        produced.set(code!, [...(produced.get(code!) ?? []), file]);
      }
    }
  }
  return produced;
}

/** Every Gateway code spelled as a string literal by core or the Gateway. */
function gatewayCodesProduced(): Map<string, string[]> {
  const produced = new Map<string, string[]>();
  const files = sources("core/src", "gateway/src");
  for (const code of Object.keys(gatewayCodes)) {
    const where = files.filter(({ text }) => text.includes(`"${code}"`)).map(({ file }) => file);
    if (where.length) produced.set(code, where);
  }
  return produced;
}

/** docs/errors.md's allow-list: `| CODE | catalog | reason |` rows under its "Catalogued, never sent" heading. */
function allowList(): Map<string, { catalog: string; reason: string }> {
  const doc = readFileSync(path.join(repo, "docs/errors.md"), "utf8");
  const start = doc.indexOf("## Catalogued, never sent");
  expect(start, "docs/errors.md has its allow-list section").toBeGreaterThan(-1);
  const end = doc.indexOf("\n## ", start + 1);
  const section = doc.slice(start, end === -1 ? undefined : end);
  const list = new Map<string, { catalog: string; reason: string }>();
  for (const row of section.split("\n").filter((l) => /^\| `[A-Z_]+` +\|/.test(l))) {
    const [, code, catalog, reason] = row.split("|").map((c) => c.trim());
    list.set(code!.replaceAll("`", ""), { catalog: catalog!, reason: reason! });
  }
  return list;
}

describe("the error catalogs against the codes the code sends", () => {
  const allowed = allowList();

  test("every allow-listed code is catalogued, in the catalog it names, with a reason", () => {
    for (const [code, { catalog, reason }] of allowed) {
      expect(["Cloud API", "Gateway"], code).toContain(catalog);
      expect(catalog === "Cloud API" ? cloudApiCodes : gatewayCodes, code).toHaveProperty(code);
      expect(reason.length, `${code} needs a reason`).toBeGreaterThan(20);
    }
  });

  test("every Cloud API code of SPEC 7.2 has a path that sends it, or a documented reason why not", () => {
    const produced = cloudApiCodesProduced();
    // The scan itself must see the producers (a broken pattern would make every code look unsent).
    expect(produced.get("VALIDATION_FAILED")?.length).toBeGreaterThan(0);
    expect(produced.get("REPLAY")).toEqual(
      expect.arrayContaining([path.join("core", "src", "approvals", "decide.ts")]),
    );
    const unsent = Object.keys(cloudApiCodes).filter(
      (code) => !produced.has(code) && allowed.get(code)?.catalog !== "Cloud API",
    );
    expect(
      unsent,
      "catalogued Cloud API codes nothing sends (send them or list them in docs/errors.md)",
    ).toEqual([]);
    const stale = [...allowed]
      .filter(([code, { catalog }]) => catalog === "Cloud API" && produced.has(code))
      .map(([code]) => `${code} (sent by ${produced.get(code)!.join(", ")})`);
    expect(stale, "allow-listed in docs/errors.md but sent: remove them from the list").toEqual([]);
  });

  test("every Gateway code of SPEC 7.3 has a path that sends it, or a documented reason why not", () => {
    const produced = gatewayCodesProduced();
    expect(produced.get("POLICY_DENIED")?.length).toBeGreaterThan(0);
    const unsent = Object.keys(gatewayCodes).filter(
      (code) => !produced.has(code) && allowed.get(code)?.catalog !== "Gateway",
    );
    expect(
      unsent,
      "catalogued Gateway codes nothing sends (send them or list them in docs/errors.md)",
    ).toEqual([]);
    const stale = [...allowed]
      .filter(([code, { catalog }]) => catalog === "Gateway" && produced.has(code))
      .map(([code]) => `${code} (sent by ${produced.get(code)!.join(", ")})`);
    expect(stale, "allow-listed in docs/errors.md but sent: remove them from the list").toEqual([]);
  });
});
