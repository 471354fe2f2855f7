/**
 * An internal failure of POST /v1/authorize (SPEC 4.1: 200, 400, 401, or 503 when the Gateway
 * cannot decide now): a real one, the receipts table gone from under a running Gateway while its
 * database stays reachable, so the decision's write fails with an error that is not the database
 * being down. The answer is 503 `unavailable` INTERNAL_ERROR with Retry-After (never a 500, never
 * `upstream_error`), nothing is recorded, and the same call decides normally once the table is back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { createAuthorizationWorld, type AuthorizationWorld } from "../fixtures/authorization.js";
import { recorded, startTestGateway, type TestGateway } from "./harness.js";

let db: TestDatabase;
let gw: TestGateway;
let world: AuthorizationWorld;

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db);
  world = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
});
afterAll(async () => {
  await gw?.close();
  await db?.drop();
});

describe("an internal failure of POST /v1/authorize", () => {
  it("answers 503 unavailable INTERNAL_ERROR with Retry-After, records nothing, and the retry decides", async () => {
    const call = { tool: world.tool, arguments: { order: "o-1", amount: 20 }, idempotency_key: "internal-1" };
    const before = await recorded(db.pool, world.organizationId);
    await db.pool.query("alter table receipts rename to receipts_away");
    let res: Awaited<ReturnType<TestGateway["authorize"]>>;
    try {
      res = await gw.authorize(world.key, call);
    } finally {
      await db.pool.query("alter table receipts_away rename to receipts");
    }
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(res.body).toEqual({
      allowed: false,
      status: "unavailable",
      code: "INTERNAL_ERROR",
      retryable: true,
      detail: expect.stringMatching(
        /^the Gateway failed while deciding \(request id .+\); retry the same call/,
      ),
    });
    // Neither the failing statement nor anything about the call is in the answer.
    expect(JSON.stringify(res.body)).not.toMatch(/receipts|relation|o-1/);
    expect(await recorded(db.pool, world.organizationId)).toEqual(before);

    const again = await gw.authorize(world.key, call);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ allowed: true, status: "authorized" });
    expect((await recorded(db.pool, world.organizationId)).actions).toBe(before.actions + 1);
  });
});
