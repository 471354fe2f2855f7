/**
 * The admission statement (key, token bucket, decision context in one round
 * trip) sends the principal's identity log and the delegations' signed
 * objects only when the Gateway does not hold them already, and whatever it
 * holds, the context it gives is the database's current one. Also the
 * bucket's arithmetic and the rows it writes, now that it is taken by the
 * statement itself.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  identitySuccessor,
  signIdentity,
  timestamp,
  type IdentityDocument,
} from "@countersign/protocol/evidence";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import {
  createAuthorizationWorld,
  createDelegation,
  createGatewayKey,
  type AuthorizationWorld,
} from "../../../test/fixtures/authorization.js";
import type { Queryable } from "../store/queryable.js";
import { identityLogOf } from "../identities/index.js";
import { parseKey } from "../keys/index.js";
import { admitGatewayCall } from "./admission.js";
import { BUCKET } from "./bucket.js";
import { ContextCache } from "./context-cache.js";

let db: TestDatabase;
let world: AuthorizationWorld;
const hashKey = randomBytes(32);

beforeAll(async () => {
  db = await createTestDatabase();
  world = await createAuthorizationWorld(db.pool, hashKey);
});
afterAll(async () => db?.drop());

interface RawContext {
  principal: { kid: string; document: unknown } | null;
  delegations: Array<{ id: string; object: unknown }>;
}

/** The pool, keeping the raw context of the last admission row (what went over the wire). */
function recording(): { db: Queryable; last: () => RawContext } {
  let raw: RawContext | undefined;
  return {
    db: {
      query: async (...args: unknown[]) => {
        const result = await (
          db.pool.query as (...a: unknown[]) => Promise<{ rows: Array<{ context: RawContext }> }>
        )(...args);
        raw = result.rows[0]?.context;
        return result;
      },
    } as unknown as Queryable,
    last: () => raw!,
  };
}

const intent = (tool: string) => ({ tool, idempotencyKey: null, defaultPlan: "developer" });

async function principalLog(kid: string): Promise<IdentityDocument[]> {
  const { rows } = await db.pool.query("select document from identities where kid = $1", [kid]);
  return identityLogOf(rows[0].document);
}

async function objectsOfDelegations(agentId: string): Promise<Record<string, unknown>> {
  const { rows } = await db.pool.query(
    "select id, object from delegations where agent_id = $1 and revoked_at is null and expires_at > now()",
    [agentId],
  );
  return Object.fromEntries(rows.map((r) => [r.id, r.object]));
}

describe("the admission's held evidence", () => {
  it("sends the principal's log and the delegations' objects once, then only what changed", async () => {
    const cache = new ContextCache();
    const rec = recording();
    const admit = () => admitGatewayCall(rec.db, hashKey, world.key, 1, intent(world.tool), cache);

    const first = await admit();
    expect(rec.last().principal!.document).not.toBeNull();
    expect(rec.last().delegations.every((d) => d.object !== null)).toBe(true);
    expect(first.context!.principal!.documents).toEqual(await principalLog(world.principal.kid));

    const second = await admit();
    expect(rec.last().principal!.document).toBeNull();
    expect(rec.last().delegations.map((d) => d.object)).toEqual([null]);
    expect(second.context!.principal!.documents).toEqual(await principalLog(world.principal.kid));
    expect(Object.fromEntries(second.context!.delegations.map((d) => [d.id, d.object]))).toEqual(
      await objectsOfDelegations(world.agentId),
    );

    // The principal's log grows: the next admission carries the whole new log.
    const log = await principalLog(world.principal.kid);
    const restated = signIdentity(
      identitySuccessor(log[0]!, {
        status: "active",
        subject: { ...log[0]!.body.subject, name: "restated" },
        issued_at: timestamp(new Date()),
      }),
      world.principal,
    );
    await db.pool.query("update identities set document = $2 where kid = $1", [
      world.principal.kid,
      JSON.stringify([...log, restated]),
    ]);
    const grown = await admit();
    expect(rec.last().principal!.document).not.toBeNull();
    expect(grown.context!.principal!.documents).toEqual([...log, restated]);
    expect((await admit()).context!.principal!.documents).toEqual([...log, restated]);
    expect(rec.last().principal!.document).toBeNull();

    // A new delegation comes with its object, the held one without; a revoked one is gone.
    const added = await createDelegation(db.pool, world.organizationId, world.agentId, world.principal, {
      permissions: ["payments.refund"],
    });
    const withNew = await admit();
    expect(rec.last().delegations.map((d) => d.object === null)).toEqual([true, false]);
    expect(withNew.context!.delegations.map((d) => d.id)).toEqual([world.delegationId, added.id]);
    expect(withNew.context!.delegations[1]!.object).toEqual(added.object);
    await db.pool.query("update delegations set revoked_at = now() where id = $1", [world.delegationId]);
    const afterRevocation = await admit();
    expect(afterRevocation.context!.delegations.map((d) => d.id)).toEqual([added.id]);
    expect(afterRevocation.context!.delegations[0]!.object).toEqual(added.object);
    expect(rec.last().delegations.map((d) => d.object)).toEqual([null]);
  });

  it("a key whose earlier agent was another's still gets its own organization's documents", async () => {
    const other = await createAuthorizationWorld(db.pool, hashKey);
    const cache = new ContextCache();
    const rec = recording();
    await admitGatewayCall(rec.db, hashKey, other.key, 1, intent(other.tool), cache);
    // A wrong guess of which agent the prefix acts for: the held evidence is the other world's.
    const key = await createGatewayKey(db.pool, hashKey, world.organizationId, world.agentId, world.ownerId);
    cache.rememberKey(parseKey(key.key)!.prefix, other.organizationId, other.agentId);
    const admitted = await admitGatewayCall(rec.db, hashKey, key.key, 1, intent(world.tool), cache);
    expect(rec.last().principal!.document).not.toBeNull();
    expect(admitted.context!.principal!.kid).toBe(world.principal.kid);
    expect(admitted.context!.principal!.documents).toEqual(await principalLog(world.principal.kid));
    expect(Object.fromEntries(admitted.context!.delegations.map((d) => [d.id, d.object]))).toEqual(
      await objectsOfDelegations(world.agentId),
    );
  });

  it("an identity row gets a new revision at every change; a delegation's object cannot change", async () => {
    const revision = async () =>
      (await db.pool.query("select revision from identities where kid = $1", [world.principal.kid])).rows[0]
        .revision as string;
    const before = await revision();
    await db.pool.query("update identities set document = document where kid = $1", [world.principal.kid]);
    expect(await revision()).not.toBe(before);

    const d = await createDelegation(db.pool, world.organizationId, world.agentId, world.principal);
    await expect(
      db.pool.query("update delegations set object = object || '{\"x\": 1}' where id = $1", [d.id]),
    ).rejects.toMatchObject({ code: "23000" });
    const { rows } = await db.pool.query("select object from delegations where id = $1", [d.id]);
    expect(rows[0].object).toEqual(d.object);
    // Revocation writes its own columns and stays possible.
    await db.pool.query("update delegations set revoked_at = now() where id = $1", [d.id]);
  });
});

describe("the token bucket taken by the admission", () => {
  const bucketOf = async (keyId: string) =>
    (await db.pool.query("select tokens, wait from rate_limit_buckets where api_key_id = $1", [keyId]))
      .rows[0];

  it("starts full, takes the cost, answers the wait when short and touches the key's last use", async () => {
    const key = await createGatewayKey(db.pool, hashKey, world.organizationId, world.agentId, world.ownerId);
    const admit = (cost: number) => admitGatewayCall(db.pool, hashKey, key.key, cost, null);
    expect(await bucketOf(key.id)).toBeUndefined();
    expect((await admit(100)).waitSeconds).toBe(0);
    expect((await bucketOf(key.id)).tokens).toBe(BUCKET.burst - 100);
    const lastUsed = (await db.pool.query("select last_used_at from api_keys where id = $1", [key.id]))
      .rows[0].last_used_at;
    expect(lastUsed).toBeInstanceOf(Date);
    // 20 tokens and a little refill are not 100: refused with the time until there are.
    const short = await admit(100);
    expect(short.waitSeconds).toBeGreaterThan((100 - 21) / BUCKET.refillPerSecond);
    expect(short.waitSeconds).toBeLessThanOrEqual((100 - 20) / BUCKET.refillPerSecond);
    const after = await bucketOf(key.id);
    expect(after.tokens).toBeGreaterThanOrEqual(20);
    expect(after.tokens).toBeLessThan(21);
    // Touched at most once a minute.
    const again = (await db.pool.query("select last_used_at from api_keys where id = $1", [key.id])).rows[0]
      .last_used_at;
    expect(again).toEqual(lastUsed);
  });

  it("a cost above the burst is never taken from a new bucket", async () => {
    const key = await createGatewayKey(db.pool, hashKey, world.organizationId, world.agentId, world.ownerId);
    const answer = await admitGatewayCall(db.pool, hashKey, key.key, BUCKET.burst + 10, null);
    expect(answer.waitSeconds).toBe(10 / BUCKET.refillPerSecond);
    expect((await bucketOf(key.id)).tokens).toBe(BUCKET.burst);
  });

  it("a wrong secret is refused and changes neither the bucket nor the key", async () => {
    const key = await createGatewayKey(db.pool, hashKey, world.organizationId, world.agentId, world.ownerId);
    const wrong = key.key.slice(0, -4) + (key.key.endsWith("AAAA") ? "BBBB" : "AAAA");
    const answer = await admitGatewayCall(db.pool, hashKey, wrong, 1, intent(world.tool));
    expect(answer.check).toEqual({ ok: false, reason: "unknown" });
    expect(answer.context).toBeUndefined();
    expect(await bucketOf(key.id)).toBeUndefined();
    const { rows } = await db.pool.query("select last_used_at from api_keys where id = $1", [key.id]);
    expect(rows[0].last_used_at).toBeNull();
  });
});
