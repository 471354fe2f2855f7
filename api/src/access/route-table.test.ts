/**
 * Generated from the route table: every implemented route (a route the server
 * answers; rows of later issues join as their handlers arrive) is called by
 * every kind of caller, and the access answer is checked against SPEC 4.3,
 * 4.4, 5.1 and 5.3 as stated there (the expectations below are written from
 * the spec, not from the mechanism). Requests carry `x-access-probe: 1`, so a
 * caller who passes gets 204 before the handler runs.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertApiKey } from "@countersign/core/keys";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { createAgent, createOrganization } from "../../../test/fixtures/organization.js";
import { Browser, randomIp, startCloudApi, type CloudApi } from "../../../test/fixtures/cloud-api.js";
import { routeTable } from "./route-table.js";
import { roleGroups, scopes, type Role, type RouteAccess, type Scope } from "./types.js";

let db: TestDatabase;
let api: CloudApi;
let orgA: string;
let orgB: string;
const sessions = new Map<string, Browser>();
const keys = new Map<string, string>();

type Caller =
  | { name: string; kind: "anonymous" }
  | { name: string; kind: "session"; who: string; role: Role | null; otherOrg?: boolean }
  | { name: string; kind: "key"; scopes: "has" | "lacks"; otherOrg?: boolean }
  | { name: string; kind: "gateway" };

const callers: Caller[] = [
  { name: "anonymous", kind: "anonymous" },
  ...(["owner", "admin", "approver", "developer", "viewer"] as const).map((r) => ({
    name: r,
    kind: "session" as const,
    who: r,
    role: r,
  })),
  { name: "non-member", kind: "session", who: "outsider", role: null },
  { name: "owner with another organization's id", kind: "session", who: "owner", role: null, otherOrg: true },
  { name: "management key with the scope", kind: "key", scopes: "has" },
  { name: "management key without the scope", kind: "key", scopes: "lacks" },
  { name: "management key with another organization's id", kind: "key", scopes: "has", otherOrg: true },
  { name: "gateway key", kind: "gateway" },
];

type Expected = "allowed" | { status: number; code: string; requiredScope?: string };
const F = (code = "FORBIDDEN", status = 403): Expected => ({ status, code });
const UNAUTH: Expected = { status: 401, code: "UNAUTHENTICATED" };
const NOT_FOUND: Expected = { status: 404, code: "NOT_FOUND" };

/** SPEC 4.3, 4.4, 5.1, 5.3, stated per caller. */
function expected(row: RouteAccess, c: Caller): Expected {
  const orgRoute = row.path.startsWith("/orgs/:");
  if (c.kind === "gateway") return row.key === "no" ? F() : UNAUTH;
  if (c.kind === "key") {
    if (row.key === "no") return F();
    if (!orgRoute) return "allowed"; // GET /gateway/identity: any scope
    if (c.otherOrg) return NOT_FOUND;
    if (c.scopes === "lacks" && row.key !== "any")
      return { status: 403, code: "FORBIDDEN", requiredScope: row.key };
    return row.keyRefusedAfterScope ? F(row.keyRefusedAfterScope) : "allowed";
  }
  if (row.who === "anyone") return "allowed";
  if (c.kind === "anonymous") return UNAUTH;
  if (!orgRoute) return "allowed";
  if (c.role === null) return NOT_FOUND;
  return (roleGroups[row.who as keyof typeof roleGroups] as readonly Role[]).includes(c.role)
    ? "allowed"
    : F();
}

function keyName(row: RouteAccess, c: Extract<Caller, { kind: "key" }>): string {
  const scope = row.key === "no" || row.key === "any" ? "read" : row.key;
  return c.scopes === "has" ? `only:${scope}` : `without:${scope}`;
}

function pathOf(row: RouteAccess, org: string): string {
  return row.path
    .replace(/:org_id/, org)
    .replace(/:kid/, "kid_probe")
    .replace(/:[a-z_]+/g, () => randomUUID());
}

async function call(row: RouteAccess, c: Caller) {
  const org = "otherOrg" in c && c.otherOrg ? orgB : orgA;
  const headers: Record<string, string> = { "x-access-probe": "1" };
  let b: Browser;
  if (c.kind === "session") b = sessions.get(c.who)!;
  else {
    b = new Browser(api.base, randomIp(), null);
    if (c.kind === "key") headers.authorization = `Bearer ${keys.get(keyName(row, c))}`;
    if (c.kind === "gateway") headers.authorization = `Bearer ${keys.get("gateway")}`;
  }
  return b.request(row.method, pathOf(row, org), undefined, headers);
}

const implemented: RouteAccess[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startCloudApi(db, { extra: { accessProbe: true } });
  orgA = await createOrganization(db.pool, { name: "A" });
  orgB = await createOrganization(db.pool, { name: "B" });
  for (const who of ["owner", "admin", "approver", "developer", "viewer", "outsider"]) {
    const b = api.browser();
    const { userId } = await b.signUpAndIn(api.smtp);
    if (who !== "outsider")
      await db.pool.query("insert into memberships (organization_id, user_id, role) values ($1, $2, $3)", [
        orgA,
        userId,
        who,
      ]);
    sessions.set(who, b);
  }
  const ownerId = (
    await db.pool.query("select user_id from memberships where organization_id = $1 and role = 'owner'", [
      orgA,
    ])
  ).rows[0].user_id;
  for (const s of scopes) {
    const make = async (name: string, list: Scope[]) =>
      keys.set(
        name,
        (
          await insertApiKey(db.pool, api.keyHashSecret, {
            organizationId: orgA,
            kind: "management",
            environment: "live",
            name,
            scopes: list,
            createdBy: ownerId,
          })
        ).key,
      );
    await make(`only:${s}`, [s]);
    await make(
      `without:${s}`,
      scopes.filter((x) => x !== s),
    );
  }
  const agent = await createAgent(db.pool, orgA);
  keys.set(
    "gateway",
    (
      await insertApiKey(db.pool, api.keyHashSecret, {
        organizationId: orgA,
        kind: "gateway",
        environment: "live",
        name: "g",
        agentId: agent,
        createdBy: ownerId,
      })
    ).key,
  );

  // Implemented routes: those the server answers with something other than its "no route" 404.
  const owner = sessions.get("owner")!;
  for (const row of routeTable) {
    const res = await owner.request(row.method, pathOf(row, orgA), undefined, { "x-access-probe": "1" });
    if (!(res.status === 404 && /^no route/.test(res.body?.error?.message ?? ""))) implemented.push(row);
  }
}, 120_000);

afterAll(async () => {
  await api?.close();
  await db?.drop();
});

describe("the route table mirrors SPEC 4.4 and 5.3", () => {
  it("has one row per route and covers the account, organization, key and audit routes of this issue", () => {
    const shapes = routeTable.map((r) => `${r.method} ${r.path}`);
    expect(new Set(shapes).size).toBe(shapes.length);
    const names = implemented.map((r) => `${r.method} ${r.path}`);
    for (const must of [
      "POST /auth/signup",
      "GET /auth/session",
      "POST /orgs",
      "PATCH /orgs/:org_id",
      "DELETE /orgs/:org_id/members/:user_id",
      "POST /orgs/:org_id/invitations",
      "POST /orgs/:org_id/api-keys/:key_id/revoke",
      "GET /orgs/:org_id/audit",
      "GET /orgs/:org_id/billing",
      "GET /gateway/identity",
    ]) {
      expect(names).toContain(must);
    }
  });

  it("refuses to start with a route that has no row", async () => {
    const { buildApiServer } = await import("../server.js");
    const { createLogger } = await import("@countersign/core/server");
    const app = buildApiServer({
      pool: db.pool,
      logger: createLogger("api", "silent"),
      cloud: {
        keyHashSecret: api.keyHashSecret,
        dashboardOrigin: "https://x.test",
        defaultPlan: "developer",
        mailer: { describe: "none", send: async () => {} },
        trustedProxyHops: 0,
      },
      routes: async (r) => {
        r.get("/orgs/:org_id/unlisted", async () => ({}));
      },
    });
    await expect(app.ready()).rejects.toThrow(/no row in the access table/);
  });
});

describe("every implemented route with every caller", () => {
  it("answers each caller as the spec says", async () => {
    expect(implemented.length).toBeGreaterThan(20);
    const failures: string[] = [];
    for (const row of implemented) {
      for (const c of callers) {
        const want = expected(row, c);
        const res = await call(row, c);
        const got =
          res.status === 204 && res.headers.get("x-access") === "allowed"
            ? "allowed"
            : {
                status: res.status,
                code: res.body?.error?.code,
                requiredScope: res.body?.error?.details?.required_scope,
              };
        const wantCmp =
          want === "allowed"
            ? "allowed"
            : { status: want.status, code: want.code, requiredScope: want.requiredScope };
        if (JSON.stringify(got) !== JSON.stringify(wantCmp))
          failures.push(
            `${row.method} ${row.path} as ${c.name}: want ${JSON.stringify(wantCmp)}, got ${JSON.stringify(got)}`,
          );
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it("re-reads the role on every request", async () => {
    const dev = sessions.get("developer")!;
    const row = { method: "GET", path: "/orgs/:org_id/audit" };
    const userId = (await dev.get("/auth/session")).body.session.user.id;
    expect(
      (await dev.request(row.method, `/orgs/${orgA}/audit`, undefined, { "x-access-probe": "1" })).status,
    ).toBe(403);
    await db.pool.query("update memberships set role = 'admin' where organization_id = $1 and user_id = $2", [
      orgA,
      userId,
    ]);
    expect(
      (await dev.request(row.method, `/orgs/${orgA}/audit`, undefined, { "x-access-probe": "1" })).status,
    ).toBe(204);
    await db.pool.query(
      "update memberships set role = 'developer' where organization_id = $1 and user_id = $2",
      [orgA, userId],
    );
    expect(
      (await dev.request(row.method, `/orgs/${orgA}/audit`, undefined, { "x-access-probe": "1" })).status,
    ).toBe(403);
  });

  it("answers a malformed organization id 404 to every caller", async () => {
    const res = await sessions.get("owner")!.get("/orgs/not-a-uuid/members");
    expect(res.status).toBe(404);
  });
});
