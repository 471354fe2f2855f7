/**
 * CSRF and Origin rules of SPEC 5.5, operator identity through a TokenReview
 * API (a real HTTP server speaking authentication.k8s.io/v1 on 127.0.0.1,
 * until the operator issue brings a real control plane), and a sweep of every
 * captured log line, response and audit entry for the secrets the test made.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import {
  Browser,
  DASHBOARD,
  randomIp,
  startCloudApi,
  type Answer,
  type CloudApi,
} from "../../../test/fixtures/cloud-api.js";
import { tokenReviewer } from "../operators/token-review.js";

let db: TestDatabase;
let api: CloudApi;
let k8s: Server;
const reviews: unknown[] = [];
const OPERATOR_TOKEN = "eyJhbGciOiJSUzI1NiJ9.operator-service-account-token.sig";
const REVIEWER_TOKEN = "reviewer-token-of-the-api";
const answers: Answer[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  // The TokenReview API: authenticates the one operator token for our audience.
  k8s = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      if (
        req.url !== "/apis/authentication.k8s.io/v1/tokenreviews" ||
        req.headers.authorization !== `Bearer ${REVIEWER_TOKEN}`
      ) {
        res.writeHead(401).end();
        return;
      }
      const review = JSON.parse(body);
      reviews.push(review);
      const ok = review.spec.token === OPERATOR_TOKEN && review.spec.audiences?.includes("countersign");
      res.writeHead(201, { "content-type": "application/json" }).end(
        JSON.stringify({
          apiVersion: "authentication.k8s.io/v1",
          kind: "TokenReview",
          status: ok
            ? {
                authenticated: true,
                user: { username: "system:serviceaccount:countersign-system:operator", uid: "u-1" },
                audiences: ["countersign"],
              }
            : { authenticated: false, error: "invalid bearer token" },
        }),
      );
    });
  });
  await new Promise<void>((r) => k8s.listen(0, "127.0.0.1", r));
  const addr = k8s.address();
  const url = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
  api = await startCloudApi(db, {
    extra: { tokenReviewer: tokenReviewer({ url, reviewerToken: REVIEWER_TOKEN, audience: "countersign" }) },
  });
});
afterAll(async () => {
  await api?.close();
  await new Promise((r) => k8s?.close(r));
  await db?.drop();
});

const record = (a: Answer) => (answers.push(a), a);

describe("CSRF and Origin (SPEC 5.5)", () => {
  it("refuses unsafe session requests without the dashboard Origin or the csrf token, and changes nothing", async () => {
    const b = api.browser();
    await b.signUpAndIn(api.smtp);
    const count = async () =>
      Number((await db.pool.query("select count(*) as n from organizations")).rows[0].n);
    const before = await count();
    const refused: Record<string, string>[] = [
      { origin: "https://evil.example" },
      { origin: "" },
      { "x-service-csrf": "" },
      { "x-service-csrf": "not-the-token" },
    ];
    for (const headers of refused) {
      const res = record(await b.post("/orgs", { name: "CSRF" }, headers));
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.body.error.code).toBe("CSRF_FAILED");
    }
    expect(await count()).toBe(before);
    expect((await b.post("/orgs", { name: "CSRF" })).status).toBe(201);
    // safe methods need neither
    expect((await b.get("/auth/session", { origin: "", "x-service-csrf": "" })).status).toBe(200);
  });

  it("refuses a foreign Origin on unauthenticated POST routes and lets a request without Origin pass", async () => {
    const foreign = record(
      await new Browser(api.base, randomIp(), "https://evil.example").post("/auth/password-reset", {
        email: "a@example.test",
      }),
    );
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe("CSRF_FAILED");
    expect(
      (
        await new Browser(api.base, randomIp(), null).post("/auth/password-reset", {
          email: "a@example.test",
        })
      ).status,
    ).toBe(202);
    expect(
      (
        await new Browser(api.base, randomIp(), DASHBOARD).post("/auth/password-reset", {
          email: "a@example.test",
        })
      ).status,
    ).toBe(202);
  });

  it("needs no token for key requests", async () => {
    const owner = api.browser();
    await owner.signUpAndIn(api.smtp);
    const org = (await owner.post("/orgs", { name: "Keys" })).body.organization.id;
    const key = record(
      await owner.post(`/orgs/${org}/api-keys`, { name: "k", kind: "management", scopes: ["read"] }),
    ).body.secret;
    // a cross-site page cannot send Authorization; the cookie is ignored when a key is sent
    const b = new Browser(api.base, randomIp(), "https://elsewhere.example");
    expect((await b.get(`/orgs/${org}`, { authorization: `Bearer ${key}` })).status).toBe(200);
  });
});

describe("operator identity (TokenReview)", () => {
  it("authenticates the operator's ServiceAccount token, applies its bound role and records it as the actor", async () => {
    const owner = api.browser();
    await owner.signUpAndIn(api.smtp);
    const org = (await owner.post("/orgs", { name: "Operated" })).body.organization.id;
    const operator = (method: string, path: string, body?: unknown) =>
      new Browser(api.base, randomIp(), null).request(method, path, body, {
        authorization: `Bearer ${OPERATOR_TOKEN}`,
      });
    // not bound yet: the organization does not exist for it
    expect((await operator("GET", `/orgs/${org}/members`)).status).toBe(404);
    const bad = await owner.post(`/orgs/${org}/operator-bindings`, { username: "alice", role: "admin" });
    expect(bad.body.error.code).toBe("VALIDATION_FAILED");
    const bind = await owner.post(`/orgs/${org}/operator-bindings`, {
      username: "system:serviceaccount:countersign-system:operator",
      role: "admin",
    });
    expect(bind.status).toBe(201);
    expect((await operator("GET", `/orgs/${org}/members`)).status).toBe(200);
    const renamed = await operator("PATCH", `/orgs/${org}`, { name: "Renamed by GitOps" });
    expect(renamed.status).toBe(200);
    // below owner: owner-only settings and account routes stay closed
    expect((await operator("PATCH", `/orgs/${org}`, { observe_max_hours: 1 })).body.error.code).toBe(
      "OWNER_REQUIRED",
    );
    expect((await operator("GET", "/auth/session")).status).toBe(403);
    const audit = await owner.get(`/orgs/${org}/audit?action=organization.updated`);
    expect(audit.body.items[0].actor).toEqual({
      type: "operator",
      id: "system:serviceaccount:countersign-system:operator",
      label: "system:serviceaccount:countersign-system:operator",
    });
    // a token the cluster does not authenticate, and an unbound one
    expect(
      (
        await new Browser(api.base, randomIp(), null).get(`/orgs/${org}/members`, {
          authorization: "Bearer some-other-token",
        })
      ).status,
    ).toBe(401);
    await owner.delete(`/orgs/${org}/operator-bindings/${bind.body.binding.id}`);
    expect((await operator("GET", `/orgs/${org}/members`)).status).toBe(404);
    expect(
      reviews.every((r) => (r as { spec: { audiences: string[] } }).spec.audiences[0] === "countersign"),
    ).toBe(true);
  });
});

describe("operator admin changes (docs/access.md)", () => {
  it("lets an operator assign an agent's policy only when an owner bound it as admin with allow_admin_changes", async () => {
    const owner = api.browser();
    await owner.signUpAndIn(api.smtp);
    const org = (await owner.post("/orgs", { name: "GitOps" })).body.organization.id;
    const policy = (await owner.post(`/orgs/${org}/policies`, { name: "p" })).body.policy.id;
    const operator = (method: string, path: string, body?: unknown) =>
      new Browser(api.base, randomIp(), null).request(method, path, body, {
        authorization: `Bearer ${OPERATOR_TOKEN}`,
      });
    const username = "system:serviceaccount:countersign-system:operator";
    const bindings = async () => (await owner.get(`/orgs/${org}/operator-bindings`)).body.items;

    // the grant needs the admin role: refused, and no binding is made
    const wrong = await owner.post(`/orgs/${org}/operator-bindings`, {
      username,
      role: "developer",
      allow_admin_changes: true,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe("VALIDATION_FAILED");
    expect(wrong.body.error.details.issues[0].path).toBe("allow_admin_changes");
    expect(await bindings()).toEqual([]);

    // bound as admin without the grant: the policy assignment is a person's, and nothing is created
    const plain = await owner.post(`/orgs/${org}/operator-bindings`, { username, role: "admin" });
    expect(plain.body.binding.allow_admin_changes).toBe(false);
    const refused = await operator("POST", `/orgs/${org}/agents`, { name: "bot", policy_id: policy });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("ADMIN_REQUIRED");
    expect((await owner.get(`/orgs/${org}/agents`)).body.items).toEqual([]);
    const agent = await operator("POST", `/orgs/${org}/agents`, { name: "bot" });
    expect(agent.status).toBe(201);
    const id = agent.body.agent.id;
    expect(
      (await operator("PATCH", `/orgs/${org}/agents/${id}`, { policy_id: policy })).body.error.code,
    ).toBe("ADMIN_REQUIRED");
    expect((await owner.get(`/orgs/${org}/agents/${id}`)).body.agent.policy).toBeNull();

    // rebound with the grant: the same switch goes through, audited with the operator as actor
    await owner.delete(`/orgs/${org}/operator-bindings/${plain.body.binding.id}`);
    const granted = await owner.post(`/orgs/${org}/operator-bindings`, {
      username,
      role: "admin",
      allow_admin_changes: true,
    });
    expect(granted.status).toBe(201);
    expect(granted.body.binding.allow_admin_changes).toBe(true);
    const switched = await operator("PATCH", `/orgs/${org}/agents/${id}`, { policy_id: policy });
    expect(switched.status).toBe(200);
    expect(switched.body.agent.policy.id).toBe(policy);
    const audit = await owner.get(`/orgs/${org}/audit?action=agent.policy_switched`);
    expect(audit.body.items[0].actor).toMatchObject({ type: "operator", id: username });
    const bound = await owner.get(`/orgs/${org}/audit?action=operator.bound`);
    expect(
      bound.body.items
        .map((i: { details: { allow_admin_changes: boolean } }) => i.details.allow_admin_changes)
        .sort(),
    ).toEqual([false, true]);
  });
});

describe("no secret in any response, log line or audit entry", () => {
  it("never shows a password, key secret, session token or link token after it was handed over", async () => {
    const password = "sw0rdfish-unique-password-9f3";
    const b = api.browser();
    const { email } = await b.signUpAndIn(api.smtp, undefined, password);
    const org = record(await b.post("/orgs", { name: "Secrets" })).body.organization.id;
    const created = record(
      await b.post(`/orgs/${org}/api-keys`, { name: "m", kind: "management", scopes: ["read"] }),
    );
    const keySecret: string = created.body.secret.slice(22);
    record(await b.post("/auth/password", { current_password: password, new_password: `${password}-2` }));
    record(await b.post("/auth/password", { current_password: `${password}-2`, new_password: password }));
    record(
      await new Browser(api.base, randomIp(), null).get(`/orgs/${org}`, {
        authorization: `Bearer ${created.body.secret}`,
      }),
    );
    record(await api.browser().post("/auth/signin", { email, password: "wrong password value 77" }));
    record(await api.browser().post("/auth/password-reset", { email }));
    const resetToken = api.smtp.lastToken(email, "password-reset");
    record(
      await api.browser().post("/auth/password-reset/confirm", { token: resetToken, new_password: password }),
    );
    const session = b.cookies.get("svc_session")!;
    const again = api.browser();
    record(await again.post("/auth/signin", { email, password }));
    const invite = record(await again.get(`/orgs/${org}/audit?limit=100`));
    const secrets = [
      password,
      `${password}-2`,
      "wrong password value 77",
      keySecret,
      session,
      again.cookies.get("svc_session")!,
      resetToken,
      OPERATOR_TOKEN,
      REVIEWER_TOKEN,
    ];
    const logs = api.logs.join("\n");
    const audit = JSON.stringify((await db.pool.query("select * from audit_log")).rows);
    // Set-Cookie is where a session token is handed over; the key's creation answer where its secret is.
    const responses = answers
      .filter((a) => a !== created)
      .map((a) => a.text + JSON.stringify([...a.headers].filter(([h]) => h !== "set-cookie")))
      .join("\n");
    expect(invite.body.items.length).toBeGreaterThan(0);
    for (const s of secrets) {
      expect(logs.includes(s), `log contains ${s.slice(0, 6)}…`).toBe(false);
      expect(audit.includes(s), `audit contains ${s.slice(0, 6)}…`).toBe(false);
      expect(responses.includes(s), `a response contains ${s.slice(0, 6)}…`).toBe(false);
    }
    // stored forms: only the key's prefix and keyed hash; only hashes of tokens and passwords
    const stored = JSON.stringify(
      (
        await db.pool.query(
          "select u.password_hash, k.prefix, encode(k.secret_hmac, 'base64') from users u, api_keys k",
        )
      ).rows,
    );
    for (const s of [password, keySecret]) expect(stored.includes(s)).toBe(false);
  });
});
