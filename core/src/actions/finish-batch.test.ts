/**
 * The batched RESULT write (finish-batch.ts) records each execution as `finish` would: the
 * RESULT, its receipt and receipt.created, and the action's final state, only for actions still
 * executing; the writer batches finishes that queue and writes a failed batch one at a time.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import {
  createAuthorizationWorld,
  createGatewayKey,
  type AuthorizationWorld,
} from "../../../test/fixtures/authorization.js";
import { countingPool, ofCalls } from "../../../test/fixtures/counting-pool.js";
import { claimed, claimTarget, decision } from "../../../test/fixtures/decision-write.js";
import { recordDecision } from "../decision/record/index.js";
import { ResultWriter } from "./finish-batch.js";
import { finishMany } from "./finish-batch-store.js";
import type { FinishedAction } from "./transitions-store.js";

let db: TestDatabase;
let w: AuthorizationWorld;
let target: Awaited<ReturnType<typeof claimTarget>>;
const keyHashSecret = randomBytes(32);
const pools: Array<{ end(): Promise<void> }> = [];

beforeAll(async () => {
  db = await createTestDatabase();
  w = await createAuthorizationWorld(db.pool, keyHashSecret);
  target = await claimTarget(db.pool, w);
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  await db?.drop();
});

/** An action recorded executing, as a claimed call's decision leaves it. */
async function executing(): Promise<string> {
  const key = await createGatewayKey(db.pool, keyHashSecret, w.organizationId, w.agentId, w.ownerId);
  const write = claimed(decision(w, key.id), target);
  expect(await recordDecision(db.pool, write)).toBe("recorded");
  return write.action.id;
}

function finished(
  actionId: string,
  resultObjectId = `ko_${randomBytes(16).toString("hex")}`,
): FinishedAction {
  const receiptObjectId = `ko_${randomBytes(16).toString("hex")}`;
  return {
    actionId,
    organizationId: w.organizationId,
    status: "succeeded",
    errorCode: null,
    result: JSON.stringify({ content: [{ type: "text", text: `done ${actionId}` }] }),
    resultObject: {
      id: resultObjectId,
      json: JSON.stringify({ id: resultObjectId, body: { type: "RESULT" } }),
    },
    receipt: {
      id: randomUUID(),
      kind: "execution",
      receiptObjectId,
      threadId: "ko_thread",
      headObjectId: resultObjectId,
      outcome: "succeeded",
      issuerKid: "kid",
      bundle: Buffer.from(JSON.stringify({ bundle: actionId })),
      bundleSha256: `sha256:${"d".repeat(64)}`,
    },
    receiptCreated: { protected_action_id: actionId, receipt_object_id: receiptObjectId },
  };
}

async function stored(actionId: string) {
  const { rows } = await db.pool.query(
    `select pa.status, pa.result, pa.result_object_id,
            (select count(*)::int from signed_objects where protected_action_id = pa.id and type = 'RESULT') as results,
            (select count(*)::int from receipts where protected_action_id = pa.id and kind = 'execution') as receipts,
            (select count(*)::int from events where type = 'receipt.created'
                and data->>'protected_action_id' = pa.id::text and data ? 'receipt_object_id') as events
       from protected_actions pa where pa.id = $1`,
    [actionId],
  );
  return rows[0];
}

describe("the batched RESULT write", () => {
  it("finishes only the actions still executing, each with its RESULT, receipt and event", async () => {
    const [a, b, c] = [await executing(), await executing(), await executing()];
    await db.pool.query(
      "update protected_actions set status = 'failed', error_code = 'INTERRUPTED' where id = $1",
      [b],
    );
    const items = [finished(a), finished(b), finished(c)];
    expect(await finishMany(db.pool, items)).toEqual([true, false, true]);
    expect(await stored(a)).toEqual({
      status: "succeeded",
      result: JSON.parse(items[0]!.result!),
      result_object_id: items[0]!.resultObject.id,
      results: 1,
      receipts: 1,
      events: 1,
    });
    expect(await stored(b)).toEqual({
      status: "failed",
      result: null,
      result_object_id: null,
      results: 0,
      receipts: 0,
      events: 0,
    });
    expect((await stored(c)).receipts).toBe(1);
    for (const [id, item] of [
      [a, items[0]!],
      [c, items[2]!],
    ] as const) {
      const { rows } = await db.pool.query(
        "select r.bundle, o.object from receipts r, signed_objects o where r.protected_action_id = $1 and r.kind = 'execution' and o.object_id = $2",
        [id, item.resultObject.id],
      );
      expect(rows[0].bundle.equals(item.receipt.bundle)).toBe(true);
      expect(rows[0].object).toEqual(JSON.parse(item.resultObject.json));
    }
  });

  it("batches finishes that queue, each answered with its own outcome", async () => {
    const { pool, sent } = countingPool(db.url);
    pools.push(pool);
    const writer = new ResultWriter(pool, { inFlight: 1 });
    const ids = await Promise.all(Array.from({ length: 6 }, () => executing()));
    expect(await Promise.all(ids.map((id) => writer.finish(finished(id))))).toEqual(Array(6).fill(true));
    expect(ofCalls(sent).map((s) => s.name)).toEqual(["execution_result", "execution_results"]);
    for (const id of ids) expect((await stored(id)).status).toBe("succeeded");
  });

  it("writes a failed batch again one at a time: the sound finish recorded, the broken one refused", async () => {
    const { pool, sent } = countingPool(db.url);
    pools.push(pool);
    const writer = new ResultWriter(pool, { inFlight: 1 });
    const [first, sound, broken] = [await executing(), await executing(), await executing()];
    const taken = finished(first);
    // A RESULT object id already stored makes the batch's insert fail, and the lone write too.
    const answers = await Promise.allSettled([
      writer.finish(taken),
      writer.finish(finished(sound)),
      writer.finish(finished(broken, taken.resultObject.id)),
    ]);
    expect(answers.map((a) => a.status)).toEqual(["fulfilled", "fulfilled", "rejected"]);
    expect(ofCalls(sent).map((s) => s.name)).toEqual([
      "execution_result",
      "execution_results",
      "execution_result",
      "execution_result",
    ]);
    expect((await stored(sound)).status).toBe("succeeded");
    expect((await stored(broken)).status).toBe("executing");
  });
});
