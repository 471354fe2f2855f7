/**
 * One organization with people signed in through a real Cloud API and a real
 * Gateway sharing the installation's signing key, ready for approvals,
 * cancellations and receipts (the evidence tests). Configuration that other
 * issues' routes create is written with the fixtures, so these tests depend
 * only on the routes they test.
 */
import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import {
  followingStep,
  generateSeed,
  signObject,
  timestamp,
  type BodyOf,
  type Signer,
  type SignedObject,
} from "../../protocol/src/evidence/index.js";
import type { Queryable } from "../../core/src/store/index.js";
import { startCloudApi, type Browser, type CloudApi } from "../fixtures/cloud-api.js";
import { addMember, orgWithOwner, type OrgWithOwner } from "../fixtures/configuration.js";
import {
  bindPersonalIdentity,
  createActivePolicy,
  createDecisionOnlyTool,
  createDelegation,
  createGatewayKey,
  createPrincipal,
  refundMapping,
  refundPolicy,
} from "../fixtures/authorization.js";
import { createAgent } from "../fixtures/organization.js";
import { startTestGateway, type TestGateway } from "../gateway/harness.js";
import type { TestDatabase } from "../setup/database.js";

export interface EvidenceWorld {
  api: CloudApi;
  gw: TestGateway;
  o: OrgWithOwner;
  org: string;
  principal: Signer;
  agentId: string;
  tool: string;
  policyId: string;
  versionId: string;
  key: string;
  /** An admin with a bound personal identity, listed on every approval request. */
  approver: { b: Browser; userId: string; signer: Signer };
  close(): Promise<void>;
}

export async function evidenceWorld(
  db: TestDatabase,
  opts: { now?: () => Date } = {},
): Promise<EvidenceWorld> {
  const signingKey = generateSeed();
  const api = await startCloudApi(db, {
    extra: { evidence: { gatewaySigningKey: signingKey, now: opts.now } },
  });
  const gw = await startTestGateway(db, {
    keyHashSecret: api.keyHashSecret,
    signingKey,
    defaultPlan: "enterprise",
  });
  const o = await orgWithOwner(api);
  const approver = await addMember(api, o, "admin");
  const approverSigner = await bindPersonalIdentity(db.pool, o.org, approver.userId);
  const principal = await createPrincipal(db.pool, o.org);
  const agentId = await createAgent(db.pool, o.org, { name: `agent-${randomBytes(3).toString("hex")}` });
  await createDelegation(db.pool, o.org, agentId, principal, { permissions: ["payments.*"] });
  const tool = await createDecisionOnlyTool(db.pool, o.org, { amountMapping: refundMapping });
  const policy = await createActivePolicy(db.pool, o.org, refundPolicy, { agentId });
  const key = await createGatewayKey(db.pool, api.keyHashSecret, o.org, agentId, o.ownerId);
  return {
    api,
    gw,
    o,
    org: o.org,
    principal,
    agentId,
    tool: tool.name,
    policyId: policy.policyId,
    versionId: policy.versionId,
    key: key.key,
    approver: { ...approver, signer: approverSigner },
    async close() {
      await gw.close();
      await api.close();
    },
  };
}

let n = 0;
/** A call the policy holds for approval (amount over 100): its approval request id and action id. */
export async function pendingCall(
  w: EvidenceWorld,
  amount = 300,
): Promise<{ approvalId: string; actionId: string; idempotencyKey: string; call: unknown }> {
  const idempotencyKey = `call-${++n}-${randomBytes(4).toString("hex")}`;
  const call = { tool: w.tool, arguments: { amount }, idempotency_key: idempotencyKey };
  const res = await w.gw.authorize(w.key, call);
  expect(res.body.status).toBe("approval_pending");
  return {
    approvalId: res.body.approval_request_id,
    actionId: res.body.protected_action_id,
    idempotencyKey,
    call,
  };
}

/** A CANCELLATION of the action's TASK signed by the organization principal, as an admin's browser signs it. */
export async function signCancellation(
  db: Queryable,
  actionId: string,
  principal: Signer,
  opts: { issuedAt?: Date } = {},
): Promise<SignedObject> {
  const { rows } = await db.query<{ task: SignedObject<BodyOf<"TASK">> }>(
    "select o.object as task from protected_actions pa join signed_objects o on o.object_id = pa.task_object_id where pa.id = $1",
    [actionId],
  );
  const task = rows[0]!.task;
  return signObject(
    followingStep(task, {
      type: "CANCELLATION",
      actor: principal.kid,
      on_behalf_of: null,
      delegations: [],
      issued_at: timestamp(opts.issuedAt ?? new Date()),
      payload: { reason: "no longer needed" },
    }),
    principal,
  );
}

/** Every row a decision, approval, cancellation or retention writes, to compare before and after a refusal. */
export async function evidenceSnapshot(db: Queryable): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const t of [
    "protected_actions",
    "approval_requests",
    "signed_objects",
    "receipts",
    "events",
    "usage_counters",
    "audit_log",
  ]) {
    const { rows } = await db.query(
      `select coalesce(json_agg(t order by t::text), '[]') as rows from ${t} t`,
    );
    out[t] = rows[0].rows;
  }
  return out;
}
