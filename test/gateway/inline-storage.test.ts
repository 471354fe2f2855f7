/**
 * A receipt is stored whole in its table's pages (migration 0030): its bundle
 * compressed inline, not moved out of line into TOAST rows, which cost two
 * more heap rows and index entries per decision. Checked on what a real
 * Gateway writes for an allowed decision and for a tools/call's RESULT, whose
 * bundles are longer than PostgreSQL's default toasting threshold (2032
 * bytes), and after the evidence worker verified the receipts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  createAuthorizationWorld,
  createMcpTool,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { echoTool, startUpstream, type Upstream } from "../fixtures/upstream-tools.js";
import { verifyNewReceipts } from "../../api/src/receipts/issuance-verifier.js";
import { startTestGateway, type TestGateway } from "./harness.js";

let db: TestDatabase;
let gw: TestGateway;
let world: AuthorizationWorld;
let up: Upstream;

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db);
  world = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
  up = await startUpstream({ tools: { refund: echoTool } });
});
afterAll(async () => {
  await gw?.close();
  await up?.close();
  await db?.drop();
});

/** Rows in the TOAST table of `table`: values PostgreSQL moved out of the table's own pages. */
async function toastRows(table: string): Promise<number> {
  const { rows } = await db.pool.query<{ toast: string }>(
    "select reltoastrelid::regclass::text as toast from pg_class where oid = $1::regclass",
    [table],
  );
  const counted = await db.pool.query<{ n: string }>(`select count(*) as n from ${rows[0]!.toast}`);
  return Number(counted.rows[0]!.n);
}

async function mcpCall(tool: string, id: string) {
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
}

describe("a receipt stays in its table's pages", () => {
  it("the receipts of an allowed decision and of a tools/call go to no TOAST, before and after their verification", async () => {
    const allowed = await gw.authorize(world.key, { tool: world.tool, arguments: { amount: 5 } });
    expect(allowed.status).toBe(200);
    const tool = (
      await createMcpTool(db.pool, world.organizationId, {
        url: up.url,
        upstreamName: "refund",
        amountMapping: { amount_path: "amount", currency: "EUR" },
      })
    ).name;
    expect((await mcpCall(tool, "inline-1")).result?.isError).toBeFalsy();

    const receipts = await db.pool.query<{ kind: string; raw: number; compression: string | null }>(
      `select kind, octet_length(bundle) as raw, pg_column_compression(bundle) as compression
         from receipts where organization_id = $1 order by kind`,
      [world.organizationId],
    );
    // Both kinds of receipt: longer than the default threshold, so they would have been toasted.
    expect(receipts.rows.map((r) => r.kind)).toEqual(["authorization", "execution"]);
    for (const r of receipts.rows) {
      expect(r.raw).toBeGreaterThan(2032);
      expect(r.compression).toBe("lz4");
    }
    expect(await toastRows("receipts")).toBe(0);
    // Stored inline, each bundle still reads back as the bytes its digest names.
    const intact = await db.pool.query<{ ok: boolean }>(
      `select 'sha256:' || encode(sha256(bundle), 'hex') = bundle_sha256 as ok from receipts where organization_id = $1`,
      [world.organizationId],
    );
    expect(intact.rows.map((r) => r.ok)).toEqual([true, true]);

    // The evidence worker's verification is a row of its own (migration 0031): an update of the
    // receipt would copy its bundle and, the report making the row too long, move it to TOAST.
    while ((await verifyNewReceipts(db.pool, new Date())) > 0);
    const verified = await db.pool.query<{ valid: boolean }>(
      "select valid from receipt_verifications where organization_id = $1",
      [world.organizationId],
    );
    expect(verified.rows.map((r) => r.valid)).toEqual([true, true]);
    expect(await toastRows("receipts")).toBe(0);
  });
});
