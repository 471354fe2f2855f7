/**
 * Page size of every paged list (SPEC 4.3, 8.5): `?limit=` 1 to 100, default 50; 0 and 101 (and
 * what is not a whole number) are 400 VALIDATION_FAILED naming `limit`. The counts are checked on
 * an organization with 101 agents; the bounds on every paged list route of an organization.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { startCloudApi, type CloudApi } from "../../../test/fixtures/cloud-api.js";
import { createAgent } from "../../../test/fixtures/organization.js";
import { orgWithOwner, type OrgWithOwner } from "../../../test/fixtures/configuration.js";

let db: TestDatabase;
let api: CloudApi;
let o: OrgWithOwner;
let agentId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startCloudApi(db);
  o = await orgWithOwner(api);
  for (let i = 0; i < 101; i++) agentId = await createAgent(db.pool, o.org, { name: `agent ${i}` });
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

const agents = (query: string) => o.owner.get(`/orgs/${o.org}/agents${query}`);

describe("?limit= counts", () => {
  it("default 50, then 1 and 100 exactly, each with a cursor while items remain", async () => {
    const byDefault = await agents("");
    expect(byDefault.status).toBe(200);
    expect(byDefault.body.items).toHaveLength(50);
    expect(byDefault.body.next_cursor).toEqual(expect.any(String));

    const one = await agents("?limit=1");
    expect(one.body.items).toHaveLength(1);
    expect(one.body.next_cursor).toEqual(expect.any(String));

    const hundred = await agents("?limit=100");
    expect(hundred.body.items).toHaveLength(100);
    const rest = await agents(`?limit=100&cursor=${encodeURIComponent(hundred.body.next_cursor)}`);
    expect(rest.body.items).toHaveLength(1);
    expect(rest.body.next_cursor).toBeNull();
    const all = new Set([...hundred.body.items, ...rest.body.items].map((a: { id: string }) => a.id));
    expect(all.size).toBe(101);
  });
});

describe("?limit= bounds on every paged list", () => {
  const lists = () => [
    `/orgs/${o.org}/agents`,
    `/orgs/${o.org}/agents/${agentId}/delegations`,
    `/orgs/${o.org}/observe-windows`,
    `/orgs/${o.org}/api-keys`,
    `/orgs/${o.org}/audit`,
    `/orgs/${o.org}/mcp-servers`,
    `/orgs/${o.org}/tools`,
    `/orgs/${o.org}/policies`,
    `/orgs/${o.org}/approvals`,
    `/orgs/${o.org}/actions`,
    `/orgs/${o.org}/receipts`,
    `/orgs/${o.org}/webhooks`,
  ];

  it("1 and 100 are answered; 0, 101, -1, 1.5 and words are 400 VALIDATION_FAILED naming limit", async () => {
    for (const path of lists()) {
      for (const ok of ["1", "100"]) {
        const res = await o.owner.get(`${path}?limit=${ok}`);
        expect(res.status, `${path}?limit=${ok}`).toBe(200);
        expect(res.body.items.length).toBeLessThanOrEqual(Number(ok));
      }
      for (const bad of ["0", "101", "-1", "1.5", "fifty"]) {
        const res = await o.owner.get(`${path}?limit=${bad}`);
        expect(res.status, `${path}?limit=${bad}`).toBe(400);
        expect(res.body.error.code).toBe("VALIDATION_FAILED");
        expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain("limit");
        // SPEC 7.1: an issue never repeats the submitted value.
        if (bad === "fifty") expect(res.text).not.toContain("fifty");
      }
    }
  });
});
