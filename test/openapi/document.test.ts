/**
 * The Cloud API's OpenAPI document (docs/openapi.md): the committed copy is
 * what the code generates, every route of the route table and every route the
 * server registers is in it with the table's authentication, the served copy
 * is the same document, and the answer check (answers.ts) refuses an answer
 * the document does not list.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routeTable } from "../../api/src/access/route-table.js";
import { cloudApiDocumentText, offlineApiServer } from "../../api/src/openapi/generate.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { startCloudApi, type CloudApi } from "../fixtures/cloud-api.js";
import { AnswerChecker } from "./answers.js";

const committedPath = new URL("../../docs/openapi/cloud-api.json", import.meta.url);
type Operation = { security?: Record<string, string[]>[]; responses: Record<string, unknown> };
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>> };

const toOpenApiPath = (path: string) => `/api/v1${path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`;
const operationsOf = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
  );

let generated: string;
let doc: Doc;
beforeAll(async () => {
  generated = await cloudApiDocumentText();
  doc = JSON.parse(generated) as Doc;
});

describe("the Cloud API's OpenAPI document", () => {
  it("is committed as the code generates it", () => {
    const committed = readFileSync(committedPath, "utf8");
    expect(committed === generated, "docs/openapi/cloud-api.json is stale: run `make openapi`").toBe(true);
  });

  it("is OpenAPI 3.1 with every route of the route table, and nothing else", () => {
    expect(doc.openapi).toBe("3.1.0");
    const table = routeTable.map((r) => `${r.method} ${toOpenApiPath(r.path)}`).sort();
    expect(operationsOf(doc).sort()).toEqual(table);
  });

  it("has every route the server registers under /api/v1", async () => {
    const { app, pool } = offlineApiServer();
    const registered: string[] = [];
    app.addHook("onRoute", (r) => {
      const methods = (Array.isArray(r.method) ? r.method : [r.method]).filter((m) => m !== "HEAD");
      if (r.url.startsWith("/api/v1/")) for (const m of methods) registered.push(`${m} ${r.url}`);
    });
    await app.ready();
    await app.close();
    await pool.end();
    const inDoc = new Set(operationsOf(doc));
    expect(registered.length).toBe(routeTable.length);
    expect(
      registered.map((r) => r.replace(/:([A-Za-z0-9_]+)/g, "{$1}")).filter((r) => !inDoc.has(r)),
    ).toEqual([]);
  });

  it("states each route's authentication from the route table", () => {
    const op = (method: string, path: string) => doc.paths[toOpenApiPath(path)]![method]!;
    expect(op("post", "/auth/signin").security).toEqual([]);
    expect(op("get", "/openapi.json").security).toEqual([]);
    expect(op("get", "/auth/session").security).toEqual([{ session: [] }]);
    expect(op("post", "/orgs/:org_id/agents").security).toEqual([
      { session: [], csrf: [] },
      { bearer: ["agents:write"] },
      { operator: [] },
    ]);
    expect(op("get", "/orgs/:org_id/audit").security).toEqual([{ session: [] }, { operator: [] }]);
    // A key passing the scope is still refused ADMIN_REQUIRED: no bearer requirement.
    expect(op("post", "/orgs/:org_id/tools/:tool_id/authorize").security).toEqual([
      { session: [], csrf: [] },
      { operator: [] },
    ]);
    expect(op("get", "/gateway/identity").security).toEqual([
      { session: [] },
      { bearer: [] },
      { operator: [] },
    ]);
  });

  it("documents the error body on the error statuses, with the catalog's codes", () => {
    const signup = doc.paths["/api/v1/auth/signup"]!.post!.responses;
    expect(Object.keys(signup).sort()).toEqual(
      [
        "202",
        "400",
        "401",
        "402",
        "403",
        "404",
        "409",
        "410",
        "413",
        "415",
        "422",
        "429",
        "500",
        "502",
        "503",
        "504",
      ].sort(),
    );
    const all = JSON.parse(generated) as {
      components: { responses: Record<string, { description: string }> };
    };
    expect(all.components.responses.Error409!.description).toContain("EMAIL_TAKEN");
    expect(all.components.responses.Error409!.description).not.toContain("VALIDATION_FAILED");
  });

  it("the answer check refuses an unlisted status and a body the schema does not describe", () => {
    const checker = new AnswerChecker(JSON.parse(generated) as Record<string, unknown>);
    const json = "application/json; charset=utf-8";
    const error = JSON.stringify({ error: { code: "NOT_FOUND", message: "no" } });
    expect(checker.check("GET", "/api/v1/orgs/:org_id/agents", 404, json, error)).toBeUndefined();
    expect(checker.check("GET", "/api/v1/orgs/:org_id/agents", 418, json, error)).toMatch(/does not list/);
    expect(checker.check("GET", "/api/v1/orgs/:org_id/agents", 404, json, "{}")).toMatch(/does not match/);
    const page = JSON.stringify({ items: [], next_cursor: null });
    expect(checker.check("GET", "/api/v1/orgs/:org_id/agents", 200, json, page)).toBeUndefined();
    expect(
      checker.check("GET", "/api/v1/orgs/:org_id/agents", 200, json, JSON.stringify({ items: [] })),
    ).toMatch(/does not match/);
    expect(checker.check("POST", "/api/v1/auth/signout", 204, undefined, "")).toBeUndefined();
  });
});

describe("the served document", () => {
  let db: TestDatabase;
  let api: CloudApi;
  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startCloudApi(db);
  });
  afterAll(async () => {
    await api?.close();
    await db?.drop();
  });

  it("is GET /api/v1/openapi.json, without credentials, the same document", async () => {
    const res = await fetch(`${api.base}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const served = (await res.json()) as Doc;
    // The committed copy was generated with another dashboard origin; nothing in the document depends on it.
    expect(served).toEqual(doc);
  });

  it("refuses a query it does not take, as every route does", async () => {
    const res = await fetch(`${api.base}/api/v1/openapi.json?x=1`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("VALIDATION_FAILED");
  });
});
