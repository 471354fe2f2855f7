/**
 * Every Cloud API route declares the schema of its success answer, and the
 * schema is enforced: fastify serialises a route's answer through its zod
 * schema (fastify-type-provider-zod), so a handler whose body the schema does
 * not describe (a member too many, one missing, a wrong type) fails with a
 * 500 instead of sending something the contract does not name.
 *
 * The routes are collected from the real server through fastify's `onRoute`
 * hook; no database is needed to build it (the pool connects lazily).
 */
import { describe, expect, it } from "vitest";
import Fastify from "fastify";
import { z } from "zod";
import pg from "pg";
import { createLogger } from "@countersign/core/server";
import { buildApiServer } from "../server.js";
import { cloudApiConventions } from "./conventions.js";
import { typed } from "./shared.js";

/** Routes that never answer success in this build, so their one declared answer is the error body (none now). */
const neverSucceed: string[] = [];

const SUCCESS = /^(2\d\d|2xx)$/;

/** Every route of the real server with whether it declares a success answer's schema. */
async function collectRoutes(): Promise<{ route: string; described: boolean; declared: boolean }[]> {
  const pool = new pg.Pool({ connectionString: "postgres://nobody@127.0.0.1:1/none", max: 1 });
  const app = buildApiServer({
    pool,
    logger: createLogger("api", "silent"),
    cloud: {
      keyHashSecret: Buffer.alloc(32, 1),
      dashboardOrigin: "https://dashboard.countersign.test",
      defaultPlan: "enterprise",
      mailer: { describe: "nowhere", send: async () => {} },
      trustedProxyHops: 0,
    },
  });
  const routes: { route: string; described: boolean; declared: boolean }[] = [];
  app.addHook("onRoute", (r) => {
    const methods = Array.isArray(r.method) ? r.method : [r.method];
    const path = r.url.replace(/^\/api\/v1/, "") || "/";
    if (!r.url.startsWith("/api/v1")) return;
    const response = (r.schema?.response ?? {}) as Record<string, unknown>;
    const described = Object.keys(response).some((status) => SUCCESS.test(status));
    const declared = Object.keys(response).length > 0;
    for (const m of methods) if (m !== "HEAD") routes.push({ route: `${m} ${path}`, described, declared });
  });
  await app.ready();
  await app.close();
  await pool.end();
  return routes;
}

describe("response schemas", () => {
  it("every route declares the schema of its success answer", async () => {
    const routes = await collectRoutes();
    expect(routes.length).toBeGreaterThan(50);
    const undeclared = routes.filter((r) => !r.declared).map((r) => r.route);
    expect(undeclared, "routes without any response schema").toEqual([]);
    const withoutSuccess = routes.filter((r) => !r.described).map((r) => r.route);
    expect(withoutSuccess.sort(), "routes without a schema for their success status").toEqual(
      [...neverSucceed].sort(),
    );
  });

  it("a body the schema does not describe is a 500, not a silently different answer", async () => {
    const app = Fastify({ logger: false });
    await app.register(cloudApiConventions, {});
    const thing = z.strictObject({ thing: z.strictObject({ id: z.string(), size: z.number() }) });
    const bodies: Record<string, unknown> = {
      right: { thing: { id: "a", size: 1 } },
      extra: { thing: { id: "a", size: 1, secret: "x" } },
      missing: { thing: { id: "a" } },
      wrong: { thing: { id: "a", size: "1" } },
    };
    await app.register(async (api) => {
      typed(api).get(
        "/:kind",
        { schema: { params: z.strictObject({ kind: z.string() }), response: { 200: thing } } },
        async (request) => bodies[request.params.kind] as z.infer<typeof thing>,
      );
    });
    const answer = async (kind: string) => {
      const res = await app.inject({ method: "GET", url: `/${kind}` });
      return { status: res.statusCode, body: res.json() as Record<string, { code?: string }> };
    };
    expect(await answer("right")).toEqual({ status: 200, body: bodies.right });
    for (const kind of ["extra", "missing", "wrong"]) {
      const res = await answer(kind);
      expect(res.status, kind).toBe(500);
      expect(res.body.error?.code, kind).toBe("INTERNAL_ERROR");
      expect(JSON.stringify(res.body), kind).not.toContain("secret");
    }
    await app.close();
  });
});
