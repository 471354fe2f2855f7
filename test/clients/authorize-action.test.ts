/**
 * `authorizeAction` of @countersign/client (SPEC 4.1 rule 6, 7.4) against a
 * real Gateway on real PostgreSQL: every decision status comes back as a
 * result, and every error class is thrown exactly when 7.4 says, with small
 * node:http servers standing in for what a network or a wrong URL does.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideApproval } from "../../core/src/approvals/index.js";
import {
  authorizeAction,
  ServiceAuthError,
  ServiceError,
  ServiceHttpError,
  ServiceProtocolError,
  ServiceRateLimitedError,
  ServiceUnavailableError,
  type AuthorizeActionOptions,
} from "../../clients/typescript/src/index.js";
import {
  createAuthorizationWorld,
  signDecision,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { recorded, startTestGateway, type TestGateway } from "../gateway/harness.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { closedPortUrl, startFakeServer } from "./fake-servers.js";
import { forceActionStatus, shiftActionTimes } from "../../core/src/actions/fixtures.test-support.js";

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
const opKey = () => `order-${++n}-${Date.now()}`;
const call = (amount: number, extra: Partial<AuthorizeActionOptions> = {}): AuthorizeActionOptions => ({
  gatewayUrl: gw.gateway.url,
  apiKey: world.key,
  tool: world.tool,
  arguments: { order: `o-${n}`, amount },
  idempotencyKey: opKey(),
  ...extra,
});

async function approve(approvalRequestId: string, type: "APPROVAL" | "REJECTION" = "APPROVAL") {
  const object = await signDecision(db.pool, approvalRequestId, world.approver.signer, type);
  return decideApproval(db.pool, {
    organizationId: world.organizationId,
    approvalRequestId,
    userId: world.approver.userId,
    object,
    identity: gw.gateway.identity,
  });
}

/** The error a promise rejects with, to check its class and members. */
async function thrown(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ServiceError);
    return err as ServiceError;
  }
  throw new Error("expected a ServiceError, got a result");
}

describe("every decision is a result", () => {
  it("authorized: every member of 4.1 in camelCase, and the same authorization for the same key", async () => {
    const req = call(40);
    const r = await authorizeAction(req);
    expect(r).toMatchObject({
      allowed: true,
      status: "authorized",
      decision: "allow",
      execution: "caller",
      code: null,
      approvalRequestId: null,
      policy: null,
    });
    if (!r.allowed) throw new Error("not authorized");
    expect(r.protectedActionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.receiptId).toMatch(/^[0-9a-f-]{36}$/);
    for (const id of [r.taskObjectId, r.proposalObjectId, r.receiptObjectId])
      expect(id).toMatch(/^ko_[0-9a-f]{64}$/);
    expect(r.argumentsDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(Date.parse(r.expiresAt)).toBeGreaterThan(Date.now());
    expect(r.note).toMatch(/expires_at/);
    expect(await authorizeAction(req)).toEqual(r);
    const { rows } = await db.pool.query(
      "select status, arguments_digest from protected_actions where id = $1",
      [r.protectedActionId],
    );
    expect(rows[0]).toEqual({ status: "authorized", arguments_digest: r.argumentsDigest });
  });

  it("approval_pending, then a waiting call returns authorized once the person approves", async () => {
    const req = call(500);
    const pending = await authorizeAction(req);
    expect(pending).toMatchObject({ allowed: false, status: "approval_pending", code: "APPROVAL_PENDING" });
    expect(pending.approvalRequestId).toMatch(/^[0-9a-f-]{36}$/);
    const waiting = authorizeAction({ ...req, waitSeconds: 30 });
    // The wait is held by the Gateway; the person decides meanwhile.
    await new Promise((r) => setTimeout(r, 200));
    await approve(pending.approvalRequestId!);
    const r = await waiting;
    expect(r).toMatchObject({
      allowed: true,
      status: "authorized",
      protectedActionId: pending.protectedActionId,
      approvalRequestId: pending.approvalRequestId,
    });
  });

  it("rejected, with the closure receipt's ids", async () => {
    const req = call(501);
    const pending = await authorizeAction(req);
    await approve(pending.approvalRequestId!, "REJECTION");
    const r = await authorizeAction(req);
    expect(r).toMatchObject({
      allowed: false,
      status: "rejected",
      code: "REJECTED",
      protectedActionId: pending.protectedActionId,
    });
    expect(r.receiptId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("expired: AUTHORIZATION_EXPIRED after expires_at, still carrying the action and receipt ids", async () => {
    const req = call(41);
    const first = await authorizeAction(req);
    await shiftActionTimes(db.pool, first.protectedActionId!, { expiresAt: "-1 second" });
    const late = await authorizeAction(req);
    expect(late).toMatchObject({
      allowed: false,
      status: "expired",
      code: "AUTHORIZATION_EXPIRED",
      protectedActionId: first.protectedActionId,
      receiptId: first.receiptId,
    });
  });

  it("cancelled", async () => {
    const req = call(502);
    const pending = await authorizeAction(req);
    await forceActionStatus(db.pool, pending.protectedActionId!, "cancelled");
    expect(await authorizeAction(req)).toMatchObject({
      allowed: false,
      status: "cancelled",
      code: "CANCELLED",
    });
  });

  it("denied, with the agent explanation", async () => {
    const r = await authorizeAction(call(20000));
    expect(r).toMatchObject({ allowed: false, status: "denied", code: "POLICY_DENIED", retryable: false });
    expect(r.protectedActionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.policy).toMatchObject({ decided_by: { kind: "rule", rule_id: "hard-cap" } });
  });

  it("plan_limit, nothing recorded", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret, { plan: "developer" });
    await db.pool.query(
      "insert into usage_counters (organization_id, month, shard, protected_actions) values ($1, date_trunc('month', now() at time zone 'utc')::date, 0, 500)",
      [w.organizationId],
    );
    const before = await recorded(db.pool, w.organizationId);
    const r = await authorizeAction({ ...call(5), apiKey: w.key, tool: w.tool });
    expect(r).toMatchObject({
      allowed: false,
      status: "plan_limit",
      code: "PLAN_LIMIT_EXCEEDED",
      protectedActionId: null,
    });
    expect(await recorded(db.pool, w.organizationId)).toEqual(before);
  });

  it("invalid_request from the Gateway (the key reused for another request, an unknown tool) is a result; nothing recorded", async () => {
    const req = call(42);
    await authorizeAction(req);
    const before = await recorded(db.pool, world.organizationId);
    expect(await authorizeAction({ ...req, arguments: { order: "other", amount: 43 } })).toMatchObject({
      allowed: false,
      status: "invalid_request",
      code: "IDEMPOTENCY_KEY_REUSED",
    });
    expect(await authorizeAction({ ...call(1), tool: "no_such_tool" })).toMatchObject({
      allowed: false,
      status: "invalid_request",
      code: "UNKNOWN_TOOL",
    });
    expect(await recorded(db.pool, world.organizationId)).toEqual(before);
  });

  it.each([
    ["an empty tool", { tool: "" }, "INVALID_REQUEST"],
    ["a tool of 129 characters", { tool: "t".repeat(129) }, "INVALID_REQUEST"],
    [
      "arguments that are an array",
      { arguments: [1] as unknown as Record<string, unknown> },
      "INVALID_REQUEST",
    ],
    ["an idempotency key of 201 characters", { idempotencyKey: "k".repeat(201) }, "INVALID_REQUEST"],
    ["a fractional wait", { waitSeconds: 1.5 }, "INVALID_REQUEST"],
    ["a decimal argument", { arguments: { amount: 12.5 } }, "INVALID_ARGUMENTS"],
  ])(
    "a request the Gateway would refuse (%s) is refused before sending, as invalid_request",
    async (_what, change, code) => {
      const server = await startFakeServer({ kind: "answer", status: 200, body: "{}" });
      try {
        const r = await authorizeAction({ ...call(1), gatewayUrl: server.url, ...change });
        expect(r).toMatchObject({ allowed: false, status: "invalid_request", code });
        expect(r.detail).toMatch(/nothing was sent/);
        expect(server.requests).toBe(0);
      } finally {
        await server.close();
      }
    },
  );
});

describe("the error classes of 7.4", () => {
  it("ServiceAuthError MALFORMED_API_KEY for a key with a trailing newline (or any other shape); nothing sent, key not in the message", async () => {
    const server = await startFakeServer({ kind: "answer", status: 200, body: "{}" });
    try {
      for (const apiKey of [
        `${world.key}\n`,
        ` ${world.key}`,
        world.key.slice(0, -1),
        world.key.replace("svc_live_", "svc_prod_"),
        "",
      ]) {
        const err = await thrown(authorizeAction({ ...call(1), gatewayUrl: server.url, apiKey }));
        expect(err).toBeInstanceOf(ServiceAuthError);
        expect(err.code).toBe("MALFORMED_API_KEY");
        expect(err.message).not.toContain(world.key.slice(-43));
      }
      expect(server.requests).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("ServiceAuthError UNAUTHORIZED when the Gateway answers 401 (a well-formed but unknown key); nothing recorded", async () => {
    const before = await recorded(db.pool, world.organizationId);
    const unknown = world.key.replace(/_[A-Za-z0-9_-]{43}$/, `_${"A".repeat(43)}`);
    const err = await thrown(authorizeAction({ ...call(1), apiKey: unknown }));
    expect(err).toBeInstanceOf(ServiceAuthError);
    expect(err.code).toBe("UNAUTHORIZED");
    expect(await recorded(db.pool, world.organizationId)).toEqual(before);
  });

  it("ServiceRateLimitedError with the wait when the key's bucket is empty", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    await db.pool.query(
      "insert into rate_limit_buckets (api_key_id, tokens, refilled_at) values ($1, 0, now() + interval '10 seconds')",
      [w.keyId],
    );
    const err = await thrown(authorizeAction({ ...call(1), apiKey: w.key, tool: w.tool }));
    expect(err).toBeInstanceOf(ServiceRateLimitedError);
    expect(err.code).toBe("RATE_LIMITED");
    expect((err as ServiceRateLimitedError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect((await recorded(db.pool, w.organizationId)).actions).toBe(0);
  });

  it("ServiceUnavailableError from a 503 of the Gateway (GATEWAY_BUSY): outcome known, nothing recorded, the wait", async () => {
    const busy = await startTestGateway(db, {
      keyHashSecret: gw.keyHashSecret,
      signingKey: gw.signingKey,
      queue: { perOrganization: 0, maxWaiting: 0 },
    });
    try {
      const before = await recorded(db.pool, world.organizationId);
      const err = await thrown(authorizeAction({ ...call(1), gatewayUrl: busy.gateway.url }));
      expect(err).toBeInstanceOf(ServiceUnavailableError);
      expect(err).toMatchObject({ code: "GATEWAY_BUSY", outcomeUnknown: false, retryAfterSeconds: 5 });
      expect(await recorded(db.pool, world.organizationId)).toEqual(before);
    } finally {
      await busy.close();
    }
  });

  it("ServiceUnavailableError NETWORK_ERROR with outcomeUnknown true when the connection is cut after the request was sent", async () => {
    const server = await startFakeServer({ kind: "cut" });
    try {
      const err = await thrown(authorizeAction({ ...call(1), gatewayUrl: server.url }));
      expect(err).toBeInstanceOf(ServiceUnavailableError);
      expect(err).toMatchObject({ code: "NETWORK_ERROR", outcomeUnknown: true });
      expect(server.requests).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("ServiceUnavailableError NETWORK_ERROR with outcomeUnknown false when nothing listens", async () => {
    const err = await thrown(authorizeAction({ ...call(1), gatewayUrl: await closedPortUrl() }));
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(err).toMatchObject({ code: "NETWORK_ERROR", outcomeUnknown: false });
  });

  it("ServiceUnavailableError TIMEOUT with outcomeUnknown true when no answer comes in time", async () => {
    const server = await startFakeServer({ kind: "silent" });
    try {
      const err = await thrown(authorizeAction({ ...call(1), gatewayUrl: server.url, timeoutMs: 300 }));
      expect(err).toBeInstanceOf(ServiceUnavailableError);
      expect(err).toMatchObject({ code: "TIMEOUT", outcomeUnknown: true });
    } finally {
      await server.close();
    }
  });

  it("ServiceUnavailableError HTTP_ERROR, outcome unknown, for another 5xx", async () => {
    const server = await startFakeServer({ kind: "answer", status: 502, body: "bad gateway" });
    try {
      const err = await thrown(authorizeAction({ ...call(1), gatewayUrl: server.url }));
      expect(err).toBeInstanceOf(ServiceUnavailableError);
      expect(err).toMatchObject({ code: "HTTP_ERROR", outcomeUnknown: true });
    } finally {
      await server.close();
    }
  });

  it("ServiceHttpError for a redirect to the real Gateway, which is never followed (the Gateway sees nothing)", async () => {
    const before = await recorded(db.pool, world.organizationId);
    for (const status of [301, 302, 307, 308]) {
      const server = await startFakeServer({
        kind: "redirect",
        status,
        location: `${gw.gateway.url}/v1/authorize`,
      });
      try {
        const err = await thrown(authorizeAction({ ...call(1), gatewayUrl: server.url }));
        expect(err).toBeInstanceOf(ServiceHttpError);
        expect(err).toMatchObject({
          code: "HTTP_ERROR",
          httpStatus: status,
          location: `${gw.gateway.url}/v1/authorize`,
        });
        expect(server.requests).toBe(1);
      } finally {
        await server.close();
      }
    }
    expect(await recorded(db.pool, world.organizationId)).toEqual(before);
  });

  it("ServiceHttpError for a 404 (a Gateway URL with a wrong path)", async () => {
    const err = await thrown(authorizeAction({ ...call(1), gatewayUrl: `${gw.gateway.url}/not-here` }));
    expect(err).toBeInstanceOf(ServiceHttpError);
    expect(err).toMatchObject({ code: "HTTP_ERROR", httpStatus: 404 });
  });

  it("ServiceHttpError before sending for a URL that would carry the key in clear or elsewhere", async () => {
    for (const gatewayUrl of [
      "http://gateway.example.com",
      "ftp://127.0.0.1/",
      "not a url",
      `${gw.gateway.url}?x=1`,
      "https://user:pw@gateway.example.com",
    ]) {
      const err = await thrown(authorizeAction({ ...call(1), gatewayUrl }));
      expect(err).toBeInstanceOf(ServiceHttpError);
      expect(err.message).toMatch(/nothing was sent/);
    }
  });

  it("ServiceProtocolError NOT_A_SERVICE_RESULT for a 200 that is not a Gateway result (never success)", async () => {
    for (const body of ['{"ok": true}', '{"allowed": true, "status": "authorized"}', "<html>hello</html>"]) {
      const server = await startFakeServer({ kind: "answer", status: 200, body });
      try {
        const err = await thrown(authorizeAction({ ...call(1), gatewayUrl: server.url }));
        expect(err).toBeInstanceOf(ServiceProtocolError);
        expect(err.code).toBe("NOT_A_SERVICE_RESULT");
      } finally {
        await server.close();
      }
    }
  });
});
