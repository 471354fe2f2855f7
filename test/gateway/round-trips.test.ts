/**
 * The hot path's cost in database work, counted so that it cannot grow
 * unnoticed: every statement a Gateway sends goes through a counting wrapper
 * around its pool's clients. A decision-only call is one round trip once the
 * process holds its key and context (the warm decision write, which re-checks
 * the configuration revision and takes the tokens), two the first time (the
 * admission read and the decision write), all named prepared statements, and
 * waits for one synchronous commit; a tools/call is counted likewise.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countingPool, ofCalls, type Sent } from "../fixtures/counting-pool.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createAuthorizationWorld,
  createGatewayKey,
  createMcpTool,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { echoTool, startUpstream, type Upstream } from "../fixtures/upstream-tools.js";
import { startTestGateway, type TestGateway } from "./harness.js";

const writes = (s: Sent) => /\b(insert|update|delete)\b/i.test(s.text);
/** Commits that wait for the WAL flush: explicit commits and writing autocommit statements not made asynchronous. */
function synchronousCommits(sent: Sent[]): number {
  let count = 0;
  let wrote = false;
  for (const s of sent) {
    const word = s.text.trim().toLowerCase();
    if (word === "begin") wrote = false;
    else if (word === "commit") count += wrote ? 1 : 0;
    else if (!s.autocommit) wrote ||= writes(s);
    else if (writes(s) && !/set_config\('synchronous_commit', 'off', true\)/.test(s.text)) count++;
  }
  return count;
}
const transactions = (sent: Sent[]) =>
  sent.filter(
    (s) =>
      s.text.trim().toLowerCase() === "commit" || (s.autocommit && s.text.trim().toLowerCase() !== "begin"),
  ).length;

let db: TestDatabase;
let counting: ReturnType<typeof countingPool>;
let gw: TestGateway;
let world: AuthorizationWorld;
let up: Upstream;

beforeAll(async () => {
  db = await createTestDatabase();
  counting = countingPool(db.url);
  gw = await startTestGateway({ ...db, pool: counting.pool });
  world = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
  up = await startUpstream({ tools: { refund: echoTool } });
});
afterAll(async () => {
  await gw?.close();
  await up?.close();
  await counting?.pool.end();
  await db?.drop();
});

async function countedAuthorize(body: unknown) {
  // The first call of a kind prepares its statements and fills the policy cache: count a later one.
  counting.sent.length = 0;
  const res = await gw.authorize(world.key, body);
  return { res, sent: ofCalls(counting.sent) };
}

describe("round trips and commits per call", () => {
  it("an allowed decision: two named statements (admission, write) the first time, one synchronous commit", async () => {
    await gw.authorize(world.key, { tool: world.tool, arguments: { amount: 5 }, idempotency_key: "warm-up" });
    // A key this process never saw: its call is admitted by a read.
    const fresh = await createGatewayKey(
      db.pool,
      gw.keyHashSecret,
      world.organizationId,
      world.agentId,
      world.ownerId,
    );
    counting.sent.length = 0;
    const res = await gw.authorize(fresh.key, { tool: world.tool, arguments: { amount: 5 } });
    const sent = ofCalls(counting.sent);
    expect(res.body.status).toBe("authorized");
    expect(sent.map((s) => s.name)).toEqual(["gateway_admission", "decision_write"]);
    expect(transactions(sent)).toBe(2);
    expect(synchronousCommits(sent)).toBe(1);
  });

  it("an allowed decision with a key and context already read: one named statement, one synchronous commit", async () => {
    // Read again since the new key moved the organization's configuration revision.
    await gw.authorize(world.key, { tool: world.tool, arguments: { amount: 5 } });
    const { res, sent } = await countedAuthorize({
      tool: world.tool,
      arguments: { amount: 5 },
      idempotency_key: "counted",
    });
    expect(res.body.status).toBe("authorized");
    expect(sent.map((s) => s.name)).toEqual(["decision_write_warm"]);
    expect(transactions(sent)).toBe(1);
    expect(synchronousCommits(sent)).toBe(1);
  });

  it("a denied decision costs no more; a repeat of a recorded one reads the action", async () => {
    const denied = await countedAuthorize({ tool: world.tool, arguments: { amount: 50_000 } });
    expect(denied.res.body.status).toBe("denied");
    expect(denied.sent.map((s) => s.name)).toEqual(["decision_write_warm"]);
    const repeat = await countedAuthorize({
      tool: world.tool,
      arguments: { amount: 5 },
      idempotency_key: "counted",
    });
    expect(repeat.res.body.status).toBe("authorized");
    // This process decided under the key before: the admission reads the context, which names the
    // recorded action, and the repeat reads its view.
    expect(repeat.sent.map((s) => s.name)).toEqual(["gateway_admission", "action_view"]);
    expect(synchronousCommits(repeat.sent)).toBe(0);
  });

  it("a tools/call: two named statements once warm (decision with its claim, RESULT), two synchronous commits", async () => {
    const tool = (
      await createMcpTool(db.pool, world.organizationId, {
        url: up.url,
        upstreamName: "refund",
        amountMapping: { amount_path: "amount", currency: "EUR" },
      })
    ).name;
    const call = async (id: string) => {
      const res = await fetch(`${gw.gateway.url}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${world.key}`,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: tool, arguments: { amount: 5 }, _meta: { "service/idempotency-key": id } },
        }),
      });
      return (await res.json()) as { result?: { isError?: boolean } };
    };
    expect((await call("mcp-warm-up")).result?.isError).toBeFalsy();
    counting.sent.length = 0;
    const answer = await call("mcp-counted");
    expect(answer.result?.isError).toBeFalsy();
    const sent = ofCalls(counting.sent);
    const statements = sent.filter((s) => !["begin", "commit"].includes(s.text.trim().toLowerCase()));
    expect(statements.every((s) => s.name !== undefined)).toBe(true);
    // The key and the call's context were read by the first call (one tools/call in the POST);
    // the claim is made in the decision's write, with no transaction of its own.
    expect(statements.map((s) => s.name)).toEqual(["decision_write_claimed_warm", "execution_result"]);
    expect(sent).toHaveLength(2);
    expect(synchronousCommits(sent)).toBe(2);
  });
});
