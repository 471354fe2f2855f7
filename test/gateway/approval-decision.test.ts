/**
 * The core function behind POST .../approvals/<id>/decision (SPEC 2.7, 7.2):
 * only an approver the request lists, signing with their own bound personal
 * key, exactly the proposal's call, while the request is pending. Every
 * refusal leaves the request, the action, objects, receipts and events as
 * they were.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideApproval } from "../../core/src/approvals/index.js";
import { ServiceError } from "../../protocol/src/errors/index.js";
import { generateSeed, nodeSigner, signObject } from "../../protocol/src/evidence/index.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import {
  bindPersonalIdentity,
  createAuthorizationWorld,
  signDecision,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { createMember } from "../fixtures/organization.js";
import { recorded, startTestGateway, type TestGateway } from "./harness.js";
import type { JsonBody } from "../fixtures/json.js";

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

let n = 0;
async function pendingRequest(): Promise<string> {
  const res = await gw.authorize(world.key, {
    tool: world.tool,
    arguments: { amount: 300 + ++n },
    idempotency_key: `approval-${n}-${Date.now()}`,
  });
  expect(res.body.status).toBe("approval_pending");
  return res.body.approval_request_id;
}

async function state(approvalRequestId: string) {
  const { rows } = await db.pool.query(
    "select ar.status, pa.status as action_status from approval_requests ar join protected_actions pa on pa.id = ar.protected_action_id where ar.id = $1",
    [approvalRequestId],
  );
  return { ...rows[0], recorded: await recorded(db.pool, world.organizationId) };
}

async function refusal(approvalRequestId: string, input: { userId?: string; object: unknown }, code: string) {
  const before = await state(approvalRequestId);
  const err = await decideApproval(db.pool, {
    organizationId: world.organizationId,
    approvalRequestId,
    userId: input.userId ?? world.approver.userId,
    object: input.object,
    identity: gw.gateway.identity,
  }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ServiceError);
  expect((err as ServiceError).code).toBe(code);
  expect(await state(approvalRequestId)).toEqual(before);
  return err as ServiceError;
}

describe("decideApproval refusals change nothing", () => {
  it("ALREADY_DECIDED once the request was decided", async () => {
    const id = await pendingRequest();
    const object = await signDecision(db.pool, id, world.approver.signer, "APPROVAL");
    await decideApproval(db.pool, {
      organizationId: world.organizationId,
      approvalRequestId: id,
      userId: world.approver.userId,
      object,
      identity: gw.gateway.identity,
    });
    await refusal(
      id,
      { object: await signDecision(db.pool, id, world.approver.signer, "REJECTION") },
      "ALREADY_DECIDED",
    );
  });

  it("POLICY_VERSION_REPLACED when a rollback or stop superseded the request", async () => {
    const id = await pendingRequest();
    await db.pool.query("update approval_requests set status = 'superseded' where id = $1", [id]);
    await refusal(
      id,
      { object: await signDecision(db.pool, id, world.approver.signer, "APPROVAL") },
      "POLICY_VERSION_REPLACED",
    );
  });

  it("IDENTITY_UNKNOWN for a key bound to nobody", async () => {
    const id = await pendingRequest();
    await refusal(
      id,
      { object: await signDecision(db.pool, id, nodeSigner(generateSeed()), "APPROVAL") },
      "IDENTITY_UNKNOWN",
    );
  });

  it("IDENTITY_MISMATCH for another person's identity, and for an identity the request does not list", async () => {
    const id = await pendingRequest();
    await refusal(
      id,
      { userId: world.ownerId, object: await signDecision(db.pool, id, world.approver.signer, "APPROVAL") },
      "IDENTITY_MISMATCH",
    );
    // A viewer binds an identity after the request was made: not among its approvers.
    const viewer = await createMember(db.pool, world.organizationId, "viewer");
    const signer = await bindPersonalIdentity(db.pool, world.organizationId, viewer);
    await refusal(
      id,
      { userId: viewer, object: await signDecision(db.pool, id, signer, "APPROVAL") },
      "IDENTITY_MISMATCH",
    );
  });

  it("VERIFICATION_FAILED for a tampered signature, another call, or an approval outliving its request", async () => {
    const id = await pendingRequest();
    const good = (await signDecision(db.pool, id, world.approver.signer, "APPROVAL")) as {
      id: string;
      body: JsonBody;
      signature: string;
    };
    const tampered = {
      ...good,
      body: { ...good.body, payload: { ...good.body.payload, expires_at: good.body.payload.expires_at } },
      signature: good.signature.replace(/^./, (c) => (c === "A" ? "B" : "A")),
    };
    const err = await refusal(id, { object: tampered }, "VERIFICATION_FAILED");
    expect(err.details?.service_code).toBeDefined();
    const otherCall = signObject(
      {
        ...good.body,
        payload: {
          ...good.body.payload,
          call: { ...good.body.payload.call, amount: { value: "1", currency: "EUR" } },
        },
      },
      world.approver.signer,
    );
    await refusal(id, { object: otherCall }, "VERIFICATION_FAILED");
    const late = await signDecision(db.pool, id, world.approver.signer, "APPROVAL", {
      expiresAt: new Date(Date.now() + 400 * 86400_000),
    });
    await refusal(id, { object: late }, "VERIFICATION_FAILED");
    await refusal(id, { object: { not: "an object" } }, "VERIFICATION_FAILED");
  });

  it("EXPIRED for a request that expired", async () => {
    const id = await pendingRequest();
    const object = await signDecision(db.pool, id, world.approver.signer, "APPROVAL");
    await db.pool.query(
      "update approval_requests set expires_at = now() - interval '1 second' where id = $1",
      [id],
    );
    await refusal(id, { object }, "EXPIRED");
  });

  it("NOT_FOUND for another organization's request", async () => {
    const other = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    const id = await pendingRequest();
    const object = await signDecision(db.pool, id, world.approver.signer, "APPROVAL");
    const err = await decideApproval(db.pool, {
      organizationId: other.organizationId,
      approvalRequestId: id,
      userId: world.approver.userId,
      object,
      identity: gw.gateway.identity,
    }).catch((e: unknown) => e);
    expect((err as ServiceError).code).toBe("NOT_FOUND");
  });
});

describe("a rollback that covers the request", () => {
  it("POLICY_VERSION_REPLACED before the closer reached it, and a request decided under the version now in force stays approvable", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    const res = await gw.authorize(w.key, {
      tool: w.tool,
      arguments: { amount: 400 },
      idempotency_key: `covered-${Date.now()}`,
    });
    // A rollback put version 2 in force and recorded its supersession; the closer has not run yet.
    const v2 = await db.pool.query(
      `insert into policy_versions (policy_id, organization_id, number, document, document_size, digest, language_revision, status)
       select policy_id, organization_id, 2, document, document_size, digest, language_revision, 'active' from policy_versions where id = $1 returning id`,
      [w.versionId],
    );
    await db.pool.query(
      "insert into policy_supersessions (organization_id, policy_id, version_id, scope, reason) values ($1, $2, $3, 'supersede_pending', 'rollback')",
      [w.organizationId, w.policyId, v2.rows[0].id],
    );
    const object = await signDecision(db.pool, res.body.approval_request_id, w.approver.signer, "APPROVAL");
    const err = await decideApproval(db.pool, {
      organizationId: w.organizationId,
      approvalRequestId: res.body.approval_request_id,
      userId: w.approver.userId,
      object,
      identity: gw.gateway.identity,
    }).catch((e: unknown) => e);
    expect((err as ServiceError).code).toBe("POLICY_VERSION_REPLACED");

    await db.pool.query("update policies set active_version_id = $2 where id = $1", [
      w.policyId,
      v2.rows[0].id,
    ]);
    const later = await gw.authorize(w.key, {
      tool: w.tool,
      arguments: { amount: 401 },
      idempotency_key: `later-${Date.now()}`,
    });
    const ok = await signDecision(db.pool, later.body.approval_request_id, w.approver.signer, "APPROVAL");
    const decided = await decideApproval(db.pool, {
      organizationId: w.organizationId,
      approvalRequestId: later.body.approval_request_id,
      userId: w.approver.userId,
      object: ok,
      identity: gw.gateway.identity,
    });
    expect(decided.status).toBe("approved");
  });
});
