/**
 * The organization's configuration revision (migration 0026) moves with every
 * change to what a Gateway key check or decision context reads, whoever
 * makes it (the Cloud API, the operator, SQL), and only then: a decision, a
 * key's last-used time or a bucket's tokens leave it where it is, or warm
 * admissions (warm-admission.ts) would never stay warm.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { createAuthorizationWorld, type AuthorizationWorld } from "../../../test/fixtures/authorization.js";

let db: TestDatabase;
let w: AuthorizationWorld;
let other: AuthorizationWorld;
const keyHashSecret = randomBytes(32);

beforeAll(async () => {
  db = await createTestDatabase();
  w = await createAuthorizationWorld(db.pool, keyHashSecret);
  other = await createAuthorizationWorld(db.pool, keyHashSecret);
});
afterAll(async () => {
  await db?.drop();
});

async function revision(organizationId: string): Promise<bigint> {
  const { rows } = await db.pool.query(
    "select revision::text from configuration_revisions where organization_id = $1",
    [organizationId],
  );
  return BigInt(rows[0].revision);
}

/** Each statement changes one row of `w`'s organization in a table a decision reads. */
const moves: Array<[string, (w: AuthorizationWorld) => [string, unknown[]]]> = [
  [
    "organizations",
    (w) => ["update organizations set agent_disclosure = 'none' where id = $1", [w.organizationId]],
  ],
  ["agents", (w) => ["update agents set name = name || '-x' where id = $1", [w.agentId]]],
  ["api_keys", (w) => ["update api_keys set expires_at = now() + interval '1 day' where id = $1", [w.keyId]]],
  ["tools", (w) => ["update tools set enabled = false where id = $1", [w.toolId]]],
  [
    "mcp_servers",
    (w) => [
      "update mcp_servers set status = 'disabled' where id = (select mcp_server_id from tools where id = $1)",
      [w.toolId],
    ],
  ],
  ["policies", (w) => ["update policies set emergency_stopped_at = now() where id = $1", [w.policyId]]],
  ["policy_versions", (w) => ["update policy_versions set note = 'changed' where id = $1", [w.versionId]]],
  [
    "identities",
    (w) => [
      "update identities set status = status where organization_id = $1 and kind = 'principal'",
      [w.organizationId],
    ],
  ],
  ["delegations", (w) => ["update delegations set revoked_at = now() where id = $1", [w.delegationId]]],
  [
    "observe_windows",
    (w) => [
      `insert into observe_windows (organization_id, agent_id, hours, ends_at)
       values ($1, $2, 1, now() + interval '1 hour')`,
      [w.organizationId, w.agentId],
    ],
  ],
  [
    "memberships",
    (w) => [
      "update memberships set role = 'admin' where organization_id = $1 and user_id = $2",
      [w.organizationId, w.ownerId],
    ],
  ],
  ["users", (w) => ["update users set disabled_at = now() where id = $1", [w.ownerId]]],
  ["api_keys (deleted)", (w) => ["delete from api_keys where id = $1", [w.keyId]]],
];

describe("the configuration revision", () => {
  it("exists for every organization", async () => {
    expect(await revision(w.organizationId)).toBeGreaterThan(0n);
    expect(await revision(other.organizationId)).toBeGreaterThan(0n);
  });

  it("stays where it is for what a decision writes: its rows, a key's last use, a bucket's tokens", async () => {
    const before = await revision(w.organizationId);
    await db.pool.query("update api_keys set last_used_at = now() where id = $1", [w.keyId]);
    await db.pool.query(
      "insert into rate_limit_buckets (api_key_id, tokens, refilled_at) values ($1, 3, now())",
      [w.keyId],
    );
    await db.pool.query(
      `insert into protected_actions (organization_id, agent_id, tool_name, action, execution, environment, status,
                                      arguments_digest, request_fingerprint)
       values ($1, $2, 'refund', 'payments.refund', 'caller', 'live', 'denied', 'sha256:' || repeat('0', 64), 'f')`,
      [w.organizationId, w.agentId],
    );
    expect(await revision(w.organizationId)).toBe(before);
  });

  it.each(moves)("moves with a change to %s, and only for that organization", async (_table, change) => {
    const before = await revision(w.organizationId);
    const untouched = await revision(other.organizationId);
    const [text, values] = change(w);
    const { rowCount } = await db.pool.query(text, values);
    expect(rowCount).toBeGreaterThan(0);
    expect(await revision(w.organizationId)).toBeGreaterThan(before);
    expect(await revision(other.organizationId)).toBe(untouched);
  });

  it("moves at commit: two transactions changing one organization's rows in opposite orders do not deadlock on it", async () => {
    const before = await revision(w.organizationId);
    const [a, b] = [await db.pool.connect(), await db.pool.connect()];
    try {
      await a.query("begin");
      await b.query("begin");
      await a.query("update agents set name = name || '-a' where id = $1", [w.agentId]);
      await b.query("update tools set description = description where id = $1", [w.toolId]);
      // a waits for b's tool row; b then commits, which bumps the revision: neither waits on the other's bump.
      const waiting = a.query("update tools set description = description where id = $1", [w.toolId]);
      await new Promise((r) => setTimeout(r, 100));
      await b.query("commit");
      await waiting;
      await a.query("commit");
    } finally {
      a.release();
      b.release();
    }
    expect(await revision(w.organizationId)).toBeGreaterThan(before);
  });

  it("is there for an organization created after the migration", async () => {
    const { rows } = await db.pool.query(
      "insert into organizations (name, slug) values ('late', 'late-' || md5(random()::text)) returning id",
    );
    expect(await revision(rows[0].id)).toBeGreaterThan(0n);
  });
});
