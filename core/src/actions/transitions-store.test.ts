/**
 * Every transition of a protected action starts from named states: from any other it applies
 * nothing and says so, on real PostgreSQL. A change that raced another one never overwrites it.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent, createOrganization } from "../../../test/fixtures/organization.js";
import { recordAction } from "../../../test/fixtures/policies.js";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import {
  actionStatuses,
  approve,
  authorizeApproved,
  deny,
  expire,
  finish,
  markCancelled,
  markExecuting,
  markEvidenceDeleted,
  reject,
  type ActionStatus,
  type GrantedReceipt,
} from "./index.js";

let db: TestDatabase;
let org: string;
let agent: string;

beforeAll(async () => {
  db = await createTestDatabase();
  org = await createOrganization(db.pool);
  agent = await createAgent(db.pool, org);
});
afterAll(async () => {
  await db?.drop();
});

const inStatus = (status: ActionStatus) =>
  recordAction(db.pool, { organizationId: org, agentId: agent, status, decisionCode: "BEFORE" });

async function row(id: string) {
  const { rows } = await db.pool.query(
    `select status, decision_code, receipt_id, execution_object_id, evidence_deleted_at,
            (select count(*)::int from receipts where protected_action_id = $1) as receipts,
            (select count(*)::int from signed_objects where protected_action_id = $1) as objects,
            (select count(*)::int from events where data->>'protected_action_id' = $1::text) as events
       from protected_actions where id = $1`,
    [id],
  );
  return rows[0];
}

const receipt = (): GrantedReceipt => ({
  id: randomUUID(),
  kind: "authorization",
  receiptObjectId: `ko_${randomUUID().replaceAll("-", "")}`,
  threadId: "ko_thread",
  headObjectId: "ko_head",
  outcome: "granted",
  issuerKid: "kid_gateway",
  bundle: Buffer.from("{}"),
  bundleSha256: "sha256:00",
});

interface Case {
  name: string;
  from: readonly ActionStatus[];
  to: ActionStatus;
  apply: (id: string) => Promise<boolean>;
}

const cases: Case[] = [
  { name: "deny", from: ["approved"], to: "denied", apply: (id) => deny(db.pool, id, "POLICY_CHANGED", "d") },
  {
    name: "expire",
    from: ["approved"],
    to: "expired",
    apply: (id) => expire(db.pool, id, "TASK_EXPIRED", "d"),
  },
  { name: "approve", from: ["pending_approval"], to: "approved", apply: (id) => approve(db.pool, id) },
  {
    name: "reject",
    from: ["pending_approval"],
    to: "rejected",
    apply: (id) => reject(db.pool, id, randomUUID()),
  },
  {
    name: "markCancelled",
    from: ["pending_approval", "approved"],
    to: "cancelled",
    apply: (id) => markCancelled(db.pool, id, randomUUID(), new Date()),
  },
  {
    name: "authorizeApproved",
    from: ["approved"],
    to: "authorized",
    apply: (id) =>
      authorizeApproved(db.pool, {
        actionId: id,
        receipt: receipt(),
        events: [{ type: "action.authorized", data: { protected_action_id: id } }],
        expiresAt: new Date(Date.now() + 60_000),
      }),
  },
  {
    name: "markExecuting",
    from: ["approved"],
    to: "executing",
    apply: (id) =>
      markExecuting(db.pool, {
        actionId: id,
        organizationId: org,
        executionObjectId: `ko_${randomUUID().replaceAll("-", "")}`,
        execution: { type: "EXECUTION" },
        deadline: new Date(Date.now() + 45_000),
      }),
  },
  {
    name: "finish",
    from: ["executing"],
    to: "succeeded",
    apply: (id) =>
      finish(db.pool, {
        actionId: id,
        organizationId: org,
        status: "succeeded",
        errorCode: null,
        result: JSON.stringify({ content: [] }),
        resultObject: {
          id: `ko_${randomUUID().replaceAll("-", "")}`,
          json: JSON.stringify({ type: "RESULT" }),
        },
        receipt: { ...receipt(), kind: "execution", outcome: "succeeded" },
        receiptCreated: { protected_action_id: id },
      }),
  },
];

describe("guarded transitions", () => {
  for (const c of cases) {
    it(`${c.name}: ${c.from.join(" or ")} → ${c.to}, and from any other state nothing changes`, async () => {
      for (const from of c.from) {
        const id = await inStatus(from);
        expect(await c.apply(id)).toBe(true);
        expect((await row(id)).status).toBe(c.to);
      }
      for (const other of actionStatuses.filter((s) => !c.from.includes(s))) {
        const id = await inStatus(other);
        const before = await row(id);
        expect(await c.apply(id)).toBe(false);
        expect(await row(id)).toEqual(before);
      }
    });
  }

  it("authorizeApproved and finish store their receipt (workflow service/task-approval@0.1) with the change, and only then", async () => {
    const id = await inStatus("approved");
    await authorizeApproved(db.pool, {
      actionId: id,
      receipt: receipt(),
      events: [{ type: "action.authorized", data: { protected_action_id: id } }],
      expiresAt: new Date(Date.now() + 60_000),
    });
    const { rows } = await db.pool.query(
      "select workflow, bundle_size, pa.receipt_id = r.id as linked from receipts r join protected_actions pa on pa.id = r.protected_action_id where pa.id = $1",
      [id],
    );
    expect(rows).toEqual([{ workflow: "service/task-approval@0.1", bundle_size: 2, linked: true }]);
    expect((await row(id)).events).toBe(1);
  });

  it("retention marks only ended actions whose evidence is still hosted", async () => {
    const ended = await inStatus("succeeded");
    const open = await inStatus("executing");
    expect(await markEvidenceDeleted(db.pool, [ended, open], new Date())).toBe(1);
    expect((await row(ended)).evidence_deleted_at).not.toBeNull();
    expect((await row(open)).evidence_deleted_at).toBeNull();
    expect(await markEvidenceDeleted(db.pool, [ended], new Date())).toBe(0);
  });
});
