/**
 * Receipts, overview and usage through the Cloud API (SPEC 2.8, 4.4, 8.4,
 * 8.6): list and filters, detail re-checked on every request, verification
 * at issuance stored by the worker, decision check, bundle download, and a
 * bundle altered in the database that neither detail nor download vouches for.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256Digest } from "../../protocol/src/canonical/index.js";
import { verifyBundle } from "../../protocol/src/evidence/index.js";
import { verifyNewReceipts } from "../../api/src/receipts/issuance-verifier.js";
import { signDecision } from "../fixtures/authorization.js";
import { managementKey } from "../fixtures/configuration.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { evidenceSnapshot, evidenceWorld, pendingCall, type EvidenceWorld } from "./world.js";

let db: TestDatabase;
let w: EvidenceWorld;
/** An authorization receipt over PROPOSAL (a small refund, allowed at once). */
let allowed: { receiptId: string; receiptObjectId: string; actionId: string };
/** A closure receipt (a rejection). */
let rejected: { receiptId: string; actionId: string };
/** An authorization receipt over a person's APPROVAL. */
let granted: { receiptId: string; actionId: string };

beforeAll(async () => {
  db = await createTestDatabase();
  w = await evidenceWorld(db);
  const a = await w.gw.authorize(w.key, {
    tool: w.tool,
    arguments: { amount: 40 },
    idempotency_key: "small-refund",
  });
  expect(a.body.status).toBe("authorized");
  allowed = {
    receiptId: a.body.receipt_id,
    receiptObjectId: a.body.receipt_object_id,
    actionId: a.body.protected_action_id,
  };
  const r = await pendingCall(w);
  const rej = await w.approver.b.post(`/orgs/${w.org}/approvals/${r.approvalId}/decision`, {
    decision: await signDecision(db.pool, r.approvalId, w.approver.signer, "REJECTION"),
  });
  rejected = { receiptId: rej.body.receipt.id, actionId: r.actionId };
  const g = await pendingCall(w, 500);
  await w.approver.b.post(`/orgs/${w.org}/approvals/${g.approvalId}/decision`, {
    decision: await signDecision(db.pool, g.approvalId, w.approver.signer, "APPROVAL"),
  });
  const auth = await w.gw.authorize(w.key, g.call);
  granted = { receiptId: auth.body.receipt_id, actionId: g.actionId };
});
afterAll(async () => {
  await w?.close();
  await db?.drop();
});

describe("GET /orgs/<org>/receipts", () => {
  it("lists receipts with their action and policy; ?outcome=final finds closures, rejected matches nothing", async () => {
    const all = await w.o.owner.get(`/orgs/${w.org}/receipts`);
    expect(all.status).toBe(200);
    const item = all.body.items.find((x: { id: string }) => x.id === allowed.receiptId);
    expect(item).toMatchObject({
      kind: "authorization",
      protected_action_id: allowed.actionId,
      receipt_object_id: allowed.receiptObjectId,
      workflow: "service/task-approval@0.1",
      outcome: "pending",
      issuer_kid: w.gw.gateway.identity.signer.kid,
      evidence: { status: "hosted", deleted_at: null },
      action: {
        id: allowed.actionId,
        status: "authorized",
        execution: "caller",
        agent: { id: w.agentId },
        tool: w.tool,
        action: "payments.refund",
      },
      policy: { policy_id: w.policyId, version_id: w.versionId, rule_id: "small", policy_effect: "allow" },
    });
    expect(item.thread_id).toMatch(/^ko_/);
    const final = await w.o.owner.get(`/orgs/${w.org}/receipts?outcome=final`);
    expect(final.body.items.map((x: { id: string }) => x.id)).toEqual([rejected.receiptId]);
    expect((await w.o.owner.get(`/orgs/${w.org}/receipts?outcome=rejected`)).body.items).toEqual([]);
    const granted_ = await w.o.owner.get(`/orgs/${w.org}/receipts?outcome=granted`);
    expect(granted_.body.items.map((x: { id: string }) => x.id)).toEqual([granted.receiptId]);
  });

  it("pages with a cursor", async () => {
    const first = await w.o.owner.get(`/orgs/${w.org}/receipts?limit=2`);
    expect(first.body.items).toHaveLength(2);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await w.o.owner.get(`/orgs/${w.org}/receipts?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.items).toHaveLength(1);
    expect(second.body.next_cursor).toBeNull();
  });

  it("needs receipts:read for a management key", async () => {
    const ok = await managementKey(w.api, w.o, ["receipts:read"]);
    expect((await ok("GET", `/orgs/${w.org}/receipts/${allowed.receiptId}/bundle`)).status).toBe(200);
    const read = await managementKey(w.api, w.o, ["read"]);
    expect((await read("GET", `/orgs/${w.org}/receipts`)).body.error).toMatchObject({
      code: "FORBIDDEN",
      details: { required_scope: "receipts:read" },
    });
  });
});

describe("receipt detail and verification at issuance", () => {
  it("shows every member of SPEC 2.8 with a fresh verification; verification_at_issuance comes from the worker", async () => {
    const before = await w.o.owner.get(`/orgs/${w.org}/receipts/${granted.receiptId}`);
    expect(before.status).toBe(200);
    expect(before.body.receipt.verified_at_issuance).toBeNull();
    expect(before.body.receipt.verification_at_issuance).toBeNull();

    // The worker's pass (also started by every api process): verifies each new bundle once.
    while ((await verifyNewReceipts(db.pool, new Date())) > 0);
    const res = await w.o.owner.get(`/orgs/${w.org}/receipts/${granted.receiptId}`);
    const r = res.body.receipt;
    expect(r).toMatchObject({
      id: granted.receiptId,
      kind: "authorization",
      outcome: "granted",
      protected_action_id: granted.actionId,
      verified_at_issuance: true,
      workflow: { id: "service/task-approval@0.1", digest: expect.stringMatching(/^sha256:/) },
      issuer_kid: w.gw.gateway.identity.signer.kid,
      result: { status: null, digest: null },
      trusted_attesters: [],
      attestations: [],
      action: { id: granted.actionId, status: "authorized" },
      policy: { rule_id: "needs-approval", policy_effect: "require_approval" },
    });
    expect(r.chain.map((s: { type: string }) => s.type)).toEqual(["TASK", "PROPOSAL", "APPROVAL"]);
    expect(r.chain[2].actor).toBe(w.approver.signer.kid);
    expect(r.summary).toMatchObject({
      approved_by: w.approver.signer.kid,
      approval: r.chain[2].id,
      requested_by: r.issuer_kid,
      requested_on_behalf_of: w.principal.kid,
    });
    expect(r.participants.map((p: { kid: string }) => p.kid).sort()).toEqual(
      [r.issuer_kid, w.approver.signer.kid, w.principal.kid].sort(),
    );
    expect(r.delegations).toHaveLength(1);
    expect(r.delegations[0]).toMatchObject({ permissions: ["payments.*"], passed: true, revocation: null });
    expect(r.verification).toMatchObject({ valid: true, errors: [], equivocated_identities: [] });
    // Trust is pinned to this installation's Gateway and the organization's principal.
    expect(r.verification.warnings.map((x: { code: string }) => x.code)).not.toContain("TRUST_NOT_PINNED");
    expect(r.verification_at_issuance).toMatchObject({ valid: true, errors: [] });
    expect(typeof r.issued_at).toBe("string");
  });

  it("stores a failed verification at issuance for a bundle that does not verify", async () => {
    const { rows } = await db.pool.query("select bundle from receipts where id = $1", [allowed.receiptId]);
    // A receipt whose stored report is not yet written and whose identity list was emptied by a bug: the report says so.
    const broken = JSON.parse(rows[0].bundle.toString("utf8"));
    broken.identities = [];
    const bytes = Buffer.from(JSON.stringify(broken));
    const other = await db.pool.query(
      `insert into receipts (organization_id, protected_action_id, kind, receipt_object_id, thread_id, head_object_id, workflow, outcome, issuer_kid, bundle, bundle_sha256, bundle_size)
       select organization_id, protected_action_id, kind, receipt_object_id || 'x', thread_id, head_object_id, workflow, outcome, issuer_kid, $2, $3, $4 from receipts where id = $1 returning id`,
      [allowed.receiptId, bytes, sha256Digest(bytes), bytes.byteLength],
    );
    while ((await verifyNewReceipts(db.pool, new Date())) > 0);
    const stored = await db.pool.query(
      "select verified_at_issuance, verification_at_issuance from receipts where id = $1",
      [other.rows[0].id],
    );
    expect(stored.rows[0].verified_at_issuance).toBe(false);
    expect(stored.rows[0].verification_at_issuance.valid).toBe(false);
    await db.pool.query("delete from receipts where id = $1", [other.rows[0].id]);
  });
});

describe("bundle download", () => {
  it("serves the stored bytes with the content type, file name and hash header after the hash check", async () => {
    const res = await fetch(`${w.api.base}/api/v1/orgs/${w.org}/receipts/${allowed.receiptId}/bundle`, {
      headers: {
        cookie: [...w.o.owner.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
        "x-forwarded-for": w.o.owner.ip,
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/vnd.service.bundle+json");
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="receipt-${allowed.receiptObjectId}.svcbundle"`,
    );
    const bytes = Buffer.from(await res.arrayBuffer());
    const { rows } = await db.pool.query("select bundle_sha256, bundle_size from receipts where id = $1", [
      allowed.receiptId,
    ]);
    expect(res.headers.get("x-service-bundle-sha256")).toBe(rows[0].bundle_sha256);
    expect(sha256Digest(bytes)).toBe(rows[0].bundle_sha256);
    expect(bytes.byteLength).toBe(rows[0].bundle_size);
    expect(verifyBundle(JSON.parse(bytes.toString("utf8"))).valid).toBe(true);
  });
});

describe("decision check", () => {
  it("re-evaluates the signed policy document and finds the signed decision", async () => {
    const res = await w.o.owner.get(`/orgs/${w.org}/receipts/${granted.receiptId}/decision-check`);
    expect(res.status).toBe(200);
    expect(res.body.decision_check).toMatchObject({
      status: "consistent",
      matches: true,
      signed: { policy_effect: "require_approval", rule_id: "needs-approval" },
      evaluated: { policy_effect: "require_approval", rule_id: "needs-approval" },
      policy: { policy_id: w.policyId, version_id: w.versionId, version: 1 },
      call: { amount: { value: "500", currency: "EUR" } },
    });
    // A closure receipt (TASK → PROPOSAL → REJECTION) checks the same way.
    const closure = await w.o.owner.get(`/orgs/${w.org}/receipts/${rejected.receiptId}/decision-check`);
    expect(closure.body.decision_check).toMatchObject({ status: "consistent", matches: true });
  });

  it("reports differs when the stored document no longer has the signed digest", async () => {
    const { rows } = await db.pool.query("select document from policy_versions where id = $1", [w.versionId]);
    const changed = { ...rows[0].document, default_effect: "allow" };
    await db.pool.query("update policy_versions set document = $2 where id = $1", [
      w.versionId,
      JSON.stringify(changed),
    ]);
    try {
      const res = await w.o.owner.get(`/orgs/${w.org}/receipts/${allowed.receiptId}/decision-check`);
      expect(res.body.decision_check).toMatchObject({ status: "differs", matches: false, evaluated: null });
      expect(res.body.decision_check.document_digest).not.toBe(res.body.decision_check.policy.digest);
    } finally {
      await db.pool.query("update policy_versions set document = $2 where id = $1", [
        w.versionId,
        JSON.stringify(rows[0].document),
      ]);
    }
  });
});

describe("a bundle whose stored bytes were altered in the database", () => {
  it("detail, decision check and download refuse to vouch for it (500 EVIDENCE_INTEGRITY_FAILED), and change nothing", async () => {
    const { rows } = await db.pool.query("select bundle from receipts where id = $1", [rejected.receiptId]);
    const original: Buffer = rows[0].bundle;
    const altered = Buffer.from(original.toString("utf8").replace('"final"', '"fînal"'));
    await db.pool.query("update receipts set bundle = $2 where id = $1", [rejected.receiptId, altered]);
    try {
      const before = await evidenceSnapshot(db.pool);
      for (const path of ["", "/bundle", "/decision-check"]) {
        const res = await w.o.owner.get(`/orgs/${w.org}/receipts/${rejected.receiptId}${path}`);
        expect({ path, status: res.status, code: res.body?.error?.code }).toEqual({
          path,
          status: 500,
          code: "EVIDENCE_INTEGRITY_FAILED",
        });
        expect(res.headers.get("x-service-bundle-sha256")).toBeNull();
        expect(res.text).not.toContain("fînal");
      }
      expect(await evidenceSnapshot(db.pool)).toEqual(before);
      // Same length, one byte changed: still refused.
      const flipped = Buffer.from(original);
      flipped[flipped.length - 2] = flipped[flipped.length - 2]! ^ 1;
      await db.pool.query("update receipts set bundle = $2 where id = $1", [rejected.receiptId, flipped]);
      expect((await w.o.owner.get(`/orgs/${w.org}/receipts/${rejected.receiptId}/bundle`)).status).toBe(500);
      // Missing bytes without retention are a server-side problem too.
      await db.pool.query("update receipts set bundle = null where id = $1", [rejected.receiptId]);
      expect((await w.o.owner.get(`/orgs/${w.org}/receipts/${rejected.receiptId}`)).body.error.code).toBe(
        "EVIDENCE_INTEGRITY_FAILED",
      );
    } finally {
      await db.pool.query("update receipts set bundle = $2 where id = $1", [rejected.receiptId, original]);
    }
    expect((await w.o.owner.get(`/orgs/${w.org}/receipts/${rejected.receiptId}`)).status).toBe(200);
  });
});

describe("overview and usage", () => {
  it("overview counts the period's actions; the period is 1 to 365 days", async () => {
    const res = await w.o.owner.get(`/orgs/${w.org}/overview?days=7`);
    expect(res.status).toBe(200);
    expect(res.body.period.days).toBe(7);
    expect(res.body.actions.by_status).toMatchObject({ authorized: 2, rejected: 1 });
    expect(res.body.receipts.by_outcome).toMatchObject({ pending: 1, final: 1, granted: 1 });
    // The same actions per UTC day, which the dashboard charts: together they are the totals.
    const byDay: { day: string; by_status: Record<string, number> }[] = res.body.actions.by_day;
    for (const d of byDay) expect(d.day).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(byDay.map((d) => d.day)).toEqual(byDay.map((d) => d.day).sort());
    const summed: Record<string, number> = {};
    for (const d of byDay) for (const [k, n] of Object.entries(d.by_status)) summed[k] = (summed[k] ?? 0) + n;
    expect(summed).toEqual(res.body.actions.by_status);
    for (const days of [0, 366, 1.5]) {
      const bad = await w.o.owner.get(`/orgs/${w.org}/overview?days=${days}`);
      expect({ days, code: bad.body.error?.code }).toEqual({ days, code: "VALIDATION_FAILED" });
    }
    expect((await w.o.owner.get(`/orgs/${w.org}/overview?days=365`)).status).toBe(200);
  });

  it("usage counts protected actions per UTC month; a repeated idempotency key does not count", async () => {
    const before = await w.o.owner.get(`/orgs/${w.org}/usage`);
    expect(before.status).toBe(200);
    const used = before.body.protected_actions.used;
    expect(before.body).toMatchObject({
      plan: "enterprise",
      month: new Date().toISOString().slice(0, 7),
      protected_actions: { limit: null },
      members: { used: 2, limit: null },
    });
    expect(before.body.months).toHaveLength(12);
    // The same key again: the same answer, no new count.
    const again = await w.gw.authorize(w.key, {
      tool: w.tool,
      arguments: { amount: 40 },
      idempotency_key: "small-refund",
    });
    expect(again.body.receipt_id).toBe(allowed.receiptId);
    expect((await w.o.owner.get(`/orgs/${w.org}/usage`)).body.protected_actions.used).toBe(used);
    await w.gw.authorize(w.key, {
      tool: w.tool,
      arguments: { amount: 41 },
      idempotency_key: "another-refund",
    });
    expect((await w.o.owner.get(`/orgs/${w.org}/usage`)).body.protected_actions.used).toBe(used + 1);
    // Plan figures of SPEC 8.6 for a limited plan.
    await db.pool.query("update organizations set plan = 'developer' where id = $1", [w.org]);
    try {
      const dev = await w.o.owner.get(`/orgs/${w.org}/usage`);
      expect(dev.body).toMatchObject({
        plan: "developer",
        protected_actions: { limit: 500 },
        members: { limit: 1 },
        agents: { used: 1, limit: 5 },
        tools: { used: 1, limit: 50 },
        retention_days: 30,
      });
    } finally {
      await db.pool.query("update organizations set plan = null where id = $1", [w.org]);
    }
  });
});

describe("refusals of the receipt, overview and usage routes", () => {
  const missing = "00000000-0000-4000-8000-000000000000";
  it("404 for unknown or malformed receipt ids; 400 for unknown query members and months out of range", async () => {
    for (const path of ["", "/bundle", "/decision-check"]) {
      expect((await w.o.owner.get(`/orgs/${w.org}/receipts/${missing}${path}`)).status).toBe(404);
      expect((await w.o.owner.get(`/orgs/${w.org}/receipts/nope${path}`)).status).toBe(404);
    }
    expect((await w.o.owner.get(`/orgs/${w.org}/receipts?colour=red`)).body.error.code).toBe(
      "VALIDATION_FAILED",
    );
    expect((await w.o.owner.get(`/orgs/${w.org}/receipts?cursor=garbage`)).body.error.code).toBe(
      "VALIDATION_FAILED",
    );
    for (const months of [0, 25])
      expect((await w.o.owner.get(`/orgs/${w.org}/usage?months=${months}`)).body.error.code).toBe(
        "VALIDATION_FAILED",
      );
    const key = await managementKey(w.api, w.o, ["receipts:read"]);
    expect((await key("GET", `/orgs/${w.org}/overview`)).body.error).toMatchObject({
      code: "FORBIDDEN",
      details: { required_scope: "read" },
    });
    const read = await managementKey(w.api, w.o, ["read"]);
    expect((await read("GET", `/orgs/${w.org}/usage`)).status).toBe(200);
  });
});
