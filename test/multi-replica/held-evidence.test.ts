/**
 * Each Gateway process keeps the principal's identity log and the agents'
 * delegation objects it has read, and its admission statement sends them
 * again only when the database's rows are not the ones it holds. Whatever a
 * process holds, the very next decision at either of two processes sees a
 * change made in between: a grown principal log, a new delegation, a
 * revoked one. Seen in what each decision signs and in the receipt's bundle.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  generateSeed,
  identitySuccessor,
  nodeSigner,
  signIdentity,
  timestamp,
  verifyBundle,
  type IdentityDocument,
  type SignedObject,
} from "../../protocol/src/evidence/index.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createAuthorizationWorld,
  createDelegation,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { authorizeAt, startGatewayProcess, type GatewayProcess } from "./gateway-process.js";

let db: TestDatabase;
let gateways: GatewayProcess[];
let world: AuthorizationWorld;
const keyHashSecret = randomBytes(32);
const signingKey = generateSeed();

beforeAll(async () => {
  db = await createTestDatabase();
  gateways = await Promise.all(
    [0, 1].map(() => startGatewayProcess({ databaseUrl: db.url, keyHashSecret, signingKey })),
  );
  world = await createAuthorizationWorld(db.pool, keyHashSecret);
}, 120_000);
afterAll(async () => {
  await Promise.all(gateways?.map((g) => g.stop()) ?? []);
  await db?.drop();
});

interface Bundle {
  objects: SignedObject[];
  identities: IdentityDocument[];
}

/** An allowed decision-only call at one process: the TASK's delegation and the receipt's bundle. */
async function allowedAt(gateway: GatewayProcess): Promise<{ delegation: string; bundle: Bundle }> {
  const res = await authorizeAt(gateway.url, world.key, { tool: world.tool, arguments: { amount: 5 } });
  expect(res.body).toMatchObject({ allowed: true, status: "authorized" });
  const { rows } = await db.pool.query("select bundle from receipts where id = $1", [res.body.receipt_id]);
  const bundle = JSON.parse(rows[0].bundle.toString("utf8")) as Bundle;
  const verified = verifyBundle(bundle as never, {
    trust: { issuers: [nodeSigner(signingKey).kid], principals: [world.principal.kid] },
  });
  expect(verified.errors).toEqual([]);
  const task = bundle.objects.find((o) => o.body.type === "TASK")!;
  return { delegation: (task.body.delegations as string[])[0]!, bundle };
}

const principalDocuments = (b: Bundle) => b.identities.filter((d) => d.body.kid === world.principal.kid);
const delegationObjects = (b: Bundle) => b.objects.filter((o) => o.body.type === "DELEGATION");

async function storedLog(): Promise<IdentityDocument[]> {
  const { rows } = await db.pool.query("select document from identities where kid = $1", [
    world.principal.kid,
  ]);
  const d = rows[0].document;
  return Array.isArray(d) ? d : [d];
}

describe("evidence held by each Gateway process", () => {
  it("a changed principal log, a new and a revoked delegation are seen by the next decision at both processes", async () => {
    const first = await storedDelegation(world.delegationId);
    // Twice at each: the second call is served with what the process holds.
    for (const gateway of [...gateways, ...gateways]) {
      const { delegation, bundle } = await allowedAt(gateway);
      expect(delegation).toBe(first.id);
      expect(principalDocuments(bundle)).toEqual(await storedLog());
      expect(delegationObjects(bundle)).toEqual([first]);
    }

    // The principal's log grows by a re-statement of its subject.
    const log = await storedLog();
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
    for (const gateway of gateways) {
      const { bundle } = await allowedAt(gateway);
      expect(principalDocuments(bundle)).toEqual([...log, restated]);
    }

    // A new delegation lasting longer is the one the next TASK relies on, at both.
    const longer = await createDelegation(db.pool, world.organizationId, world.agentId, world.principal, {
      permissions: ["payments.*"],
      expiresAt: new Date(Date.now() + 60 * 86400_000),
    });
    for (const gateway of gateways) {
      const { delegation, bundle } = await allowedAt(gateway);
      expect(delegation).toBe(longer.object.id);
      expect(delegationObjects(bundle)).toEqual([longer.object]);
    }

    // Revoked: the next TASK relies on the first again; then that one revoked, nothing grants.
    await db.pool.query("update delegations set revoked_at = now() where id = $1", [longer.id]);
    for (const gateway of gateways) expect((await allowedAt(gateway)).delegation).toBe(first.id);
    await db.pool.query("update delegations set revoked_at = now() where id = $1", [world.delegationId]);
    for (const gateway of gateways) {
      const res = await authorizeAt(gateway.url, world.key, { tool: world.tool, arguments: { amount: 5 } });
      expect(res.body).toMatchObject({ allowed: false, status: "denied", code: "NO_DELEGATION" });
    }
  });
});

async function storedDelegation(id: string): Promise<SignedObject> {
  const { rows } = await db.pool.query("select object from delegations where id = $1", [id]);
  return rows[0].object;
}
