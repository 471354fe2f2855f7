/**
 * Account flows end to end through the real SMTP path (SPEC 4.4 account
 * routes, 5.5): sign-up, verification, sign-in, session, sign-out, password
 * change, password reset, e-mail change approve and reject.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { startCloudApi, type CloudApi } from "../../../test/fixtures/cloud-api.js";
import { jsonOf } from "../../../test/fixtures/json.js";

let db: TestDatabase;
let api: CloudApi;
const PASSWORD = "correct horse battery staple";

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startCloudApi(db);
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

const unique = (p: string) => `${p}-${Math.random().toString(36).slice(2, 10)}@example.test`;
const userCount = async () => Number((await db.pool.query("select count(*) as n from users")).rows[0].n);

describe("sign-up and verification", () => {
  it("signs up, refuses sign-in until the address is verified, then signs in with a Secure HttpOnly SameSite=Lax cookie", async () => {
    const b = api.browser();
    const email = unique("new");
    const up = await b.post("/auth/signup", { email, password: PASSWORD });
    expect(up.status).toBe(202);
    const early = await b.post("/auth/signin", { email, password: PASSWORD });
    expect(early.status).toBe(401);
    expect(early.body.error.code).toBe("INVALID_CREDENTIALS");
    const token = api.smtp.lastToken(email, "verify-email");
    expect((await b.post("/auth/email/verify", { token })).status).toBe(200);
    // the link is used up
    const again = await b.post("/auth/email/verify", { token });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe("INVALID_OR_EXPIRED_TOKEN");
    const res = await fetch(`${api.base}/api/v1/auth/signin`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": b.ip },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    expect(res.status).toBe(200);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("svc_session="))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const body = await jsonOf(res);
    expect(body.session.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.session.user).toMatchObject({ email, email_verified: true });
    expect(JSON.stringify(body)).not.toContain(cookie.split(";")[0]!.split("=")[1]!);
  });

  it("answers 202 for an address that already has an account, creates nothing and tells the owner by e-mail", async () => {
    const b = api.browser();
    const { email } = await b.signUpAndIn(api.smtp, unique("dup"));
    const before = await userCount();
    const res = await api.browser().post("/auth/signup", { email, password: "another password entirely" });
    expect(res.status).toBe(202);
    expect(await userCount()).toBe(before);
    expect(api.smtp.to(email).at(-1)!.subject).toMatch(/tried to sign up/);
    // the old password still works
    expect((await api.browser().post("/auth/signin", { email, password: PASSWORD })).status).toBe(200);
  });

  it("refuses a password under 12 or over 256 characters with VALIDATION_FAILED and creates nothing", async () => {
    const before = await userCount();
    for (const password of ["short", "x".repeat(11), "x".repeat(257)]) {
      const res = await api.browser().post("/auth/signup", { email: unique("pw"), password });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_FAILED");
      expect(JSON.stringify(res.body)).not.toContain(password);
    }
    expect(await userCount()).toBe(before);
  });

  it("resends a verification link that replaces the previous one", async () => {
    const b = api.browser();
    const email = unique("resend");
    await b.post("/auth/signup", { email, password: PASSWORD });
    const first = api.smtp.lastToken(email, "verify-email");
    expect((await b.post("/auth/email/resend", { email })).status).toBe(202);
    const second = api.smtp.lastToken(email, "verify-email");
    expect(second).not.toBe(first);
    expect((await b.post("/auth/email/verify", { token: first })).body.error.code).toBe(
      "INVALID_OR_EXPIRED_TOKEN",
    );
    expect((await b.post("/auth/email/verify", { token: second })).status).toBe(200);
  });

  it("answers an e-mail service refusal with 503 EMAIL_DELIVERY_FAILED and Retry-After, and creates nothing", async () => {
    const before = await userCount();
    api.smtp.refuse = true;
    try {
      const res = await api.browser().post("/auth/signup", { email: unique("down"), password: PASSWORD });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe("EMAIL_DELIVERY_FAILED");
      expect(res.headers.get("retry-after")).toBeTruthy();
    } finally {
      api.smtp.refuse = false;
    }
    expect(await userCount()).toBe(before);
  });
});

describe("sign-in and sessions", () => {
  it("gives one INVALID_CREDENTIALS answer for a wrong password, an unknown address and a disabled account", async () => {
    const b = api.browser();
    const { email, userId } = await b.signUpAndIn(api.smtp, unique("cred"));
    const wrong = await api.browser().post("/auth/signin", { email, password: "not the password at all" });
    const unknown = await api.browser().post("/auth/signin", { email: unique("nobody"), password: PASSWORD });
    await db.pool.query("update users set disabled_at = now() where id = $1", [userId]);
    const disabled = await api.browser().post("/auth/signin", { email, password: PASSWORD });
    for (const r of [wrong, unknown, disabled]) {
      expect(r.status).toBe(401);
      expect(r.body).toEqual(wrong.body);
    }
    // a disabled account's session stops working too
    expect((await b.get("/auth/session")).status).toBe(401);
  });

  it("returns the session with its csrf_token, and signs out", async () => {
    const b = api.browser();
    const { email } = await b.signUpAndIn(api.smtp, unique("sess"));
    const s = await b.get("/auth/session");
    expect(s.status).toBe(200);
    expect(s.body.session).toMatchObject({ user: { email }, csrf_token: b.csrf });
    const out = await b.post("/auth/signout");
    expect(out.status).toBe(204);
    expect((await b.get("/auth/session")).status).toBe(401);
  });

  it("ends a session 12 hours after its last use and 7 days after sign-in", async () => {
    const idle = api.browser();
    await idle.signUpAndIn(api.smtp, unique("idle"));
    const long = api.browser();
    await long.signUpAndIn(api.smtp, unique("long"));
    const token = (b: typeof idle) => b.cookies.get("svc_session")!;
    const { tokenHash } = await import("../accounts/tokens.js");
    await db.pool.query(
      "update sessions set last_seen_at = now() - interval '12 hours 1 second' where token_hash = $1",
      [tokenHash(token(idle))],
    );
    await db.pool.query(
      "update sessions set expires_at = now() - interval '1 second' where token_hash = $1",
      [tokenHash(token(long))],
    );
    expect((await idle.get("/auth/session")).status).toBe(401);
    expect((await long.get("/auth/session")).status).toBe(401);
    // just under the idle limit still works
    const fresh = api.browser();
    await fresh.signUpAndIn(api.smtp, unique("fresh"));
    await db.pool.query(
      "update sessions set last_seen_at = now() - interval '11 hours 59 minutes' where token_hash = $1",
      [tokenHash(token(fresh))],
    );
    expect((await fresh.get("/auth/session")).status).toBe(200);
  });

  it("stores only a hash of the session token", async () => {
    const b = api.browser();
    await b.signUpAndIn(api.smtp, unique("hash"));
    const token = b.cookies.get("svc_session")!;
    const { rows } = await db.pool.query("select * from sessions");
    expect(JSON.stringify(rows)).not.toContain(token);
  });
});

describe("password change and reset", () => {
  it("changes the password with the current one, signs out other browsers and sends a notice", async () => {
    const a = api.browser();
    const { email } = await a.signUpAndIn(api.smtp, unique("chg"));
    const other = api.browser();
    await other.post("/auth/signin", { email, password: PASSWORD });
    const wrong = await a.post("/auth/password", {
      current_password: "wrong wrong wrong",
      new_password: "a brand new password",
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.code).toBe("INVALID_CURRENT_PASSWORD");
    expect((await api.browser().post("/auth/signin", { email, password: PASSWORD })).status).toBe(200);
    const ok = await a.post("/auth/password", {
      current_password: PASSWORD,
      new_password: "a brand new password",
    });
    expect(ok.status).toBe(204);
    expect((await a.get("/auth/session")).status).toBe(200);
    expect((await other.get("/auth/session")).status).toBe(401);
    expect(api.smtp.to(email).at(-1)!.subject).toMatch(/password was changed/);
    expect((await api.browser().post("/auth/signin", { email, password: PASSWORD })).status).toBe(401);
    expect(
      (await api.browser().post("/auth/signin", { email, password: "a brand new password" })).status,
    ).toBe(200);
  });

  it("resets a forgotten password through the e-mailed link, once", async () => {
    const a = api.browser();
    const { email } = await a.signUpAndIn(api.smtp, unique("reset"));
    const anon = api.browser();
    expect((await anon.post("/auth/password-reset", { email })).status).toBe(202);
    expect((await anon.post("/auth/password-reset", { email: unique("ghost") })).status).toBe(202);
    const token = api.smtp.lastToken(email, "password-reset");
    const short = await anon.post("/auth/password-reset/confirm", { token, new_password: "short" });
    expect(short.body.error.code).toBe("VALIDATION_FAILED");
    expect(
      (await anon.post("/auth/password-reset/confirm", { token, new_password: "reset to this password" }))
        .status,
    ).toBe(204);
    expect(
      (await anon.post("/auth/password-reset/confirm", { token, new_password: "and again to this one" })).body
        .error.code,
    ).toBe("INVALID_OR_EXPIRED_TOKEN");
    expect((await a.get("/auth/session")).status).toBe(401);
    expect(
      (await api.browser().post("/auth/signin", { email, password: "reset to this password" })).status,
    ).toBe(200);
  });
});

describe("e-mail change", () => {
  it("moves the account after approval with the password; the reject link then no longer works", async () => {
    const a = api.browser();
    const { email, userId } = await a.signUpAndIn(api.smtp, unique("old"));
    const next = unique("new");
    const wrongPw = await a.post("/me/email", { new_email: next, password: "not my password!" });
    expect(wrongPw.body.error.code).toBe("INVALID_CURRENT_PASSWORD");
    expect((await a.post("/me/email", { new_email: next, password: PASSWORD })).status).toBe(202);
    const approve = api.smtp.lastToken(next, "email-change/approve");
    const reject = api.smtp.lastToken(email, "email-change/reject");
    const bad = await api
      .browser()
      .post("/auth/email/change/approve", { token: approve, password: "not my password!" });
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe("INVALID_CREDENTIALS");
    expect((await db.pool.query("select email from users where id = $1", [userId])).rows[0].email).toBe(
      email,
    );
    const ok = await api.browser().post("/auth/email/change/approve", { token: approve, password: PASSWORD });
    expect(ok.status).toBe(200);
    expect((await db.pool.query("select email from users where id = $1", [userId])).rows[0].email).toBe(next);
    expect((await api.browser().post("/auth/email/change/reject", { token: reject })).body.error.code).toBe(
      "INVALID_OR_EXPIRED_TOKEN",
    );
    expect((await api.browser().post("/auth/signin", { email: next, password: PASSWORD })).status).toBe(200);
  });

  it("stops a change through the reject link sent to the old address", async () => {
    const a = api.browser();
    const { email, userId } = await a.signUpAndIn(api.smtp, unique("keep"));
    const next = unique("stolen");
    await a.post("/me/email", { new_email: next, password: PASSWORD });
    const approve = api.smtp.lastToken(next, "email-change/approve");
    expect(
      (
        await api
          .browser()
          .post("/auth/email/change/reject", { token: api.smtp.lastToken(email, "email-change/reject") })
      ).status,
    ).toBe(200);
    const late = await api
      .browser()
      .post("/auth/email/change/approve", { token: approve, password: PASSWORD });
    expect(late.body.error.code).toBe("INVALID_OR_EXPIRED_TOKEN");
    expect((await db.pool.query("select email from users where id = $1", [userId])).rows[0].email).toBe(
      email,
    );
  });

  it("refuses an address in use with 409 EMAIL_TAKEN and sends nothing", async () => {
    const a = api.browser();
    await a.signUpAndIn(api.smtp, unique("one"));
    const { email: other } = await api.browser().signUpAndIn(api.smtp, unique("two"));
    const sent = api.smtp.messages.length;
    const res = await a.post("/me/email", { new_email: other, password: PASSWORD });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("EMAIL_TAKEN");
    expect(api.smtp.messages.length).toBe(sent);
  });
});
