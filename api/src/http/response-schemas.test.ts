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

/**
 * Routes whose resources are still being given response schemas, by who is
 * doing it. The list only shrinks: a route here that has a schema fails the
 * test too, so whoever adds one removes the route from this list.
 */
const pending: Record<string, string[]> = {
  // Billing is unconfigured in a self-hosted installation: these two only ever refuse (503, with
  // the error body declared), and the spec names no success body to declare.
  "billing checkout and portal (no success answer)": [
    "POST /orgs/:org_id/billing/checkout",
    "POST /orgs/:org_id/billing/portal",
  ],
  "configuration and policies (h/api-a)": [
    "GET /orgs/:org_id/agents",
    "GET /orgs/:org_id/agents/:agent_id",
    "POST /orgs/:org_id/agents",
    "PATCH /orgs/:org_id/agents/:agent_id",
    "GET /orgs/:org_id/agents/:agent_id/delegations",
    "POST /orgs/:org_id/agents/:agent_id/delegations",
    "POST /orgs/:org_id/delegations/:delegation_id/revoke",
    "POST /orgs/:org_id/agents/:agent_id/observe",
    "POST /orgs/:org_id/agents/:agent_id/observe/end",
    "POST /orgs/:org_id/observe/end-all",
    "GET /orgs/:org_id/agents/:agent_id/observe",
    "GET /orgs/:org_id/observe-windows",
    "GET /orgs/:org_id/observe-windows/:window_id",
    "GET /orgs/:org_id/observe-windows/:window_id/report",
    "GET /orgs/:org_id/mcp-servers",
    "GET /orgs/:org_id/mcp-servers/:server_id",
    "POST /orgs/:org_id/mcp-servers",
    "PATCH /orgs/:org_id/mcp-servers/:server_id",
    "DELETE /orgs/:org_id/mcp-servers/:server_id",
    "POST /orgs/:org_id/mcp-servers/:server_id/discover",
    "GET /orgs/:org_id/tools",
    "GET /orgs/:org_id/tools/:tool_id",
    "POST /orgs/:org_id/tools",
    "PATCH /orgs/:org_id/tools/:tool_id",
    "POST /orgs/:org_id/tools/:tool_id/authorize",
    "POST /orgs/:org_id/agents/:agent_id/dry-run",
    "GET /orgs/:org_id/policy-templates",
    "GET /orgs/:org_id/policies",
    "GET /orgs/:org_id/policies/:policy_id",
    "POST /orgs/:org_id/policies/validate",
    "POST /orgs/:org_id/policies",
    "POST /orgs/:org_id/policies/from-template",
    "POST /orgs/:org_id/policies/:policy_id/versions",
    "PATCH /orgs/:org_id/policies/:policy_id",
    "POST /orgs/:org_id/policies/:policy_id/versions/:version_id/activate",
    "POST /orgs/:org_id/policies/:policy_id/rollback",
    "POST /orgs/:org_id/policies/:policy_id/emergency",
    "POST /orgs/:org_id/policies/:policy_id/supersede-open-actions",
    "PUT /orgs/:org_id/policies/:policy_id/shadow",
    "DELETE /orgs/:org_id/policies/:policy_id/shadow",
    "GET /orgs/:org_id/policy-status",
    "PUT /orgs/:org_id/policies/:policy_id/examples",
    "POST /orgs/:org_id/policies/:policy_id/simulate",
    "POST /orgs/:org_id/policies/:policy_id/simulations",
    "GET /orgs/:org_id/policies/:policy_id/simulations",
    "GET /orgs/:org_id/policies/:policy_id/simulations/:simulation_id",
    "GET /orgs/:org_id/policies/:policy_id/shadow/report",
    "GET /orgs/:org_id/policies/:policy_id/versions/:version_id/decision-map",
    "GET /orgs/:org_id/policies/:policy_id/diff",
    "GET /orgs/:org_id/policies/:policy_id/evidence",
  ],
};

const SUCCESS = /^(2\d\d|2xx)$/;

/** Every route of the real server with whether it declares a success answer's schema. */
async function collectRoutes(): Promise<{ route: string; described: boolean }[]> {
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
  const routes: { route: string; described: boolean }[] = [];
  app.addHook("onRoute", (r) => {
    const methods = Array.isArray(r.method) ? r.method : [r.method];
    const path = r.url.replace(/^\/api\/v1/, "") || "/";
    if (!r.url.startsWith("/api/v1")) return;
    const response = (r.schema?.response ?? {}) as Record<string, unknown>;
    const described = Object.keys(response).some((status) => SUCCESS.test(status));
    for (const m of methods) if (m !== "HEAD") routes.push({ route: `${m} ${path}`, described });
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
    const waiting = new Set(Object.values(pending).flat());
    const undescribed = routes.filter((r) => !r.described && !waiting.has(r.route)).map((r) => r.route);
    expect(undescribed, "routes without a response schema for their success status").toEqual([]);
    const done = routes.filter((r) => r.described && waiting.has(r.route)).map((r) => r.route);
    expect(done, "routes that now declare one: remove them from the pending list").toEqual([]);
    const known = new Set(routes.map((r) => r.route));
    const gone = [...waiting].filter((r) => !known.has(r));
    expect(gone, "pending routes the server does not have").toEqual([]);
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
