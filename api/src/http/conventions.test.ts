/**
 * The Cloud API conventions of SPEC 4.3, each rule its own test, against a
 * real server on loopback and a real PostgreSQL. A probe route that creates an
 * organization stands in for the routes later issues add, so "bad input
 * changes nothing" is checked on a real table.
 */
import { Writable } from "node:stream";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createLogger } from "@countersign/core/server";
import { createPool } from "@countersign/core/store";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { buildApiServer } from "../server.js";
import { jsonOf } from "../../../test/fixtures/json.js";

let db: TestDatabase;
let app: FastifyInstance;
let base: string;
const logLines: string[] = [];

async function probeRoutes(api: FastifyInstance) {
  const r = api.withTypeProvider<ZodTypeProvider>();
  r.post(
    "/orgs",
    {
      schema: {
        body: z.strictObject({ name: z.string().min(1).max(200) }),
        querystring: z.strictObject({ dry_run: z.enum(["true", "false"]).optional() }),
      },
    },
    async (request, reply) => {
      const { rows } = await db.pool.query(
        "insert into organizations (name, slug) values ($1, $2) returning id",
        [request.body.name, `s-${Date.now()}-${Math.random()}`],
      );
      return reply.code(201).send({ id: rows[0].id });
    },
  );
  r.get("/orgs/:org_id", { schema: { params: z.strictObject({ org_id: z.uuid() }) } }, async (request) => {
    const { rows } = await db.pool.query("select id, name from organizations where id = $1", [
      request.params.org_id,
    ]);
    if (!rows[0])
      throw new (await import("@countersign/protocol/errors")).ServiceError(
        "NOT_FOUND",
        "organization not found",
      );
    return rows[0];
  });
  r.get("/cached", async (_request, reply) => reply.header("cache-control", "max-age=60").send({ ok: true }));
  r.get("/boom", async () => {
    throw new Error("password=hunter2 leaked into an exception");
  });
}

async function orgCount(): Promise<number> {
  const { rows } = await db.pool.query("select count(*)::int as n from organizations");
  return rows[0].n;
}

function post(
  path: string,
  body: string | Buffer,
  contentType = "application/json",
  headers: Record<string, string> = {},
) {
  return fetch(`${base}/api/v1${path}`, {
    method: "POST",
    body,
    headers: { "content-type": contentType, ...headers },
  });
}

beforeAll(async () => {
  db = await createTestDatabase();
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logLines.push(...chunk.toString().split("\n").filter(Boolean));
      cb();
    },
  });
  app = buildApiServer({ pool: db.pool, logger: createLogger("api", "info", sink), routes: probeRoutes });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const addr = app.server.address();
  base = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe("Cloud API conventions (SPEC 4.3)", () => {
  it("accepts a valid JSON body", async () => {
    const before = await orgCount();
    const res = await post("/orgs", JSON.stringify({ name: "Acme" }), "application/json; charset=utf-8");
    expect(res.status).toBe(201);
    expect(await orgCount()).toBe(before + 1);
  });

  it("refuses other content types with 415 UNSUPPORTED_MEDIA_TYPE and records nothing", async () => {
    const before = await orgCount();
    for (const type of [
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
    ]) {
      const res = await post("/orgs", "name=Acme", type);
      expect(res.status).toBe(415);
      expect((await jsonOf(res)).error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    }
    expect(await orgCount()).toBe(before);
  });

  it("refuses bodies over 1 MiB with 413 PAYLOAD_TOO_LARGE and records nothing", async () => {
    const before = await orgCount();
    const res = await post("/orgs", JSON.stringify({ name: "x".repeat(1024 * 1024) }));
    expect(res.status).toBe(413);
    expect((await jsonOf(res)).error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(await orgCount()).toBe(before);
  });

  it("refuses malformed JSON with 400 INVALID_JSON", async () => {
    const before = await orgCount();
    const res = await post("/orgs", '{"name": "Acme"');
    expect(res.status).toBe(400);
    expect((await jsonOf(res)).error.code).toBe("INVALID_JSON");
    expect(await orgCount()).toBe(before);
  });

  it("refuses an unknown body member with 400 VALIDATION_FAILED naming it, never echoing values", async () => {
    const before = await orgCount();
    const res = await post("/orgs", JSON.stringify({ name: "Acme", colour: "secret-colour-value" }));
    expect(res.status).toBe(400);
    const body = await jsonOf(res);
    expect(body.error.code).toBe("VALIDATION_FAILED");
    expect(body.error.details.issues).toEqual([
      { path: "colour", code: "unknown_member", message: "unknown member" },
    ]);
    expect(JSON.stringify(body)).not.toContain("secret-colour-value");
    expect(await orgCount()).toBe(before);
  });

  it("refuses an invalid member value with an issue carrying path, code and message but not the value", async () => {
    const res = await post("/orgs", JSON.stringify({ name: 12345678 }));
    expect(res.status).toBe(400);
    const [issue] = (await jsonOf(res)).error.details.issues;
    expect(issue).toMatchObject({ path: "name", code: "invalid_type" });
    expect(issue.message).not.toContain("12345678");
  });

  it("refuses an unknown query member with 400 VALIDATION_FAILED", async () => {
    const before = await orgCount();
    const res = await post("/orgs?dry_run=true&verbose=1", JSON.stringify({ name: "Acme" }));
    expect(res.status).toBe(400);
    const body = await jsonOf(res);
    expect(body.error.code).toBe("VALIDATION_FAILED");
    expect(body.error.details.issues[0].path).toBe("verbose");
    expect(await orgCount()).toBe(before);
  });

  it("answers a malformed path id with 404, never 400", async () => {
    const res = await fetch(`${base}/api/v1/orgs/not-a-uuid`);
    expect(res.status).toBe(404);
    expect((await jsonOf(res)).error.code).toBe("NOT_FOUND");
    const missing = await fetch(`${base}/api/v1/orgs/00000000-0000-4000-8000-000000000000`);
    expect(missing.status).toBe(404);
  });

  it("answers unknown routes with 404 NOT_FOUND in the error body", async () => {
    const res = await fetch(`${base}/api/v1/nothing-here`);
    expect(res.status).toBe(404);
    expect(await jsonOf(res)).toMatchObject({ error: { code: "NOT_FOUND" } });
  });

  it("sets Cache-Control: no-store unless the route set its own", async () => {
    expect((await fetch(`${base}/api/v1/orgs/not-a-uuid`)).headers.get("cache-control")).toBe("no-store");
    expect((await post("/orgs", JSON.stringify({ name: "Cache" }))).headers.get("cache-control")).toBe(
      "no-store",
    );
    expect((await fetch(`${base}/api/v1/cached`)).headers.get("cache-control")).toBe("max-age=60");
  });

  it("echoes a well-formed X-Request-Id and replaces a malformed one", async () => {
    const good = await fetch(`${base}/api/v1/cached`, { headers: { "x-request-id": "trace-42.a:b_c-d" } });
    expect(good.headers.get("x-request-id")).toBe("trace-42.a:b_c-d");
    for (const bad of ["has space", "x".repeat(129), "-leading-dash", "semi;colon", "{json}"]) {
      const res = await fetch(`${base}/api/v1/cached`, { headers: { "x-request-id": bad } });
      const id = res.headers.get("x-request-id");
      expect(id).not.toBe(bad);
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
    }
    const none = await fetch(`${base}/api/v1/cached`);
    expect(none.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("sends no CORS headers, not even to a preflight", async () => {
    const preflight = await fetch(`${base}/api/v1/orgs`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    const simple = await fetch(`${base}/api/v1/cached`, { headers: { origin: "https://evil.example" } });
    for (const res of [preflight, simple]) {
      expect([...res.headers.keys()].filter((h) => h.startsWith("access-control-"))).toEqual([]);
    }
  });

  it("turns an unexpected failure into 500 INTERNAL_ERROR without details, naming the request id", async () => {
    const res = await fetch(`${base}/api/v1/boom`, { headers: { "x-request-id": "boom-1" } });
    expect(res.status).toBe(500);
    const body = await jsonOf(res);
    expect(body).toEqual({
      error: { code: "INTERNAL_ERROR", message: "internal error (request id boom-1)" },
    });
  });

  it("logs one JSON line per request, with the request id and never the authorization header, cookie or query string", async () => {
    await fetch(`${base}/api/v1/cached?token=tok_should_not_be_logged`, {
      headers: {
        "x-request-id": "log-check-1",
        authorization: "Bearer svc_secret_key_material",
        cookie: "svc_session=sess_secret",
      },
    });
    const lines = logLines.filter((l) => l.includes("log-check-1"));
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({
      request_id: "log-check-1",
      msg: "request completed",
      req: { method: "GET", path: "/api/v1/cached" },
      res: { statusCode: 200 },
    });
    expect(typeof line.responseTime).toBe("number");
    const all = logLines.join("\n");
    for (const secret of ["svc_secret_key_material", "sess_secret", "tok_should_not_be_logged"])
      expect(all).not.toContain(secret);
  });

  it("answers 503 SERVICE_UNAVAILABLE with Retry-After: 5 when the database is down, and /readyz is 503", async () => {
    const deadPool = createPool("postgres://postgres@127.0.0.1:1/none", { applicationName: "dead" });
    const down = buildApiServer({
      pool: deadPool,
      logger: createLogger("api", "silent"),
      routes: async (api) => {
        api.get("/orgs", async () => (await deadPool.query("select 1")).rows);
      },
    });
    try {
      const res = await down.inject({ method: "GET", url: "/api/v1/orgs" });
      expect(res.statusCode).toBe(503);
      expect(res.headers["retry-after"]).toBe("5");
      expect(res.json().error.code).toBe("SERVICE_UNAVAILABLE");
      const ready = await down.inject({ method: "GET", url: "/readyz" });
      expect(ready.statusCode).toBe(503);
      expect((await app.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(200);
    } finally {
      await down.close();
      await deadPool.end();
    }
  });
});
