/**
 * Every Cloud API rate limit of SPEC 8.1 at its boundary: the requests up to
 * the limit pass, the next one is refused 429 RATE_LIMITED with Retry-After
 * and details.retry_after_seconds, and the refused request changed nothing.
 * The counters live in PostgreSQL, so a second api process sees them too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import {
  Browser,
  randomIp,
  startCloudApi,
  type Answer,
  type CloudApi,
} from "../../../test/fixtures/cloud-api.js";
import { ipSubjects } from "./client-ip.js";

let db: TestDatabase;
let api: CloudApi;
let second: CloudApi;
const PW = "correct horse battery staple";

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startCloudApi(db);
  second = await startCloudApi(db, { extra: { keyHashSecret: api.keyHashSecret } });
});
afterAll(async () => {
  await api?.close();
  await second?.close();
  await db?.drop();
});

let n = 0;
const email = (p = "rl") => `${p}-${++n}-${Math.random().toString(36).slice(2, 8)}@example.test`;
const count = async (sql: string, args: unknown[] = []) => Number((await db.pool.query(sql, args)).rows[0].n);

function expectLimited(res: Answer) {
  expect(res.status, res.text).toBe(429);
  expect(res.body.error.code).toBe("RATE_LIMITED");
  const wait = Number(res.headers.get("retry-after"));
  expect(wait).toBeGreaterThan(0);
  expect(res.body.error.details.retry_after_seconds).toBe(wait);
}

/** `limit` calls pass (never 429), the next is refused. */
async function boundary(limit: number, call: (i: number) => Promise<Answer>): Promise<Answer> {
  for (let i = 0; i < limit; i++) {
    const res = await call(i);
    expect(res.status, `call ${i + 1} of ${limit}: ${res.text}`).not.toBe(429);
  }
  const over = await call(limit);
  expectLimited(over);
  return over;
}

describe("general limits", () => {
  it("1200 requests per minute per client IP, across api processes", async () => {
    const ip = randomIp();
    const a = new Browser(api.base, ip, null);
    const b = new Browser(second.base, ip, null);
    await boundary(1200, (i) => (i % 2 ? a : b).get("/auth/session"));
  }, 60_000);

  it("groups IPv6 clients by /64", async () => {
    const a = new Browser(api.base, "2001:db8:1:2:aaaa::1", null);
    const b = new Browser(api.base, "2001:db8:1:2:bbbb::2", null);
    await boundary(1200, (i) => (i % 2 ? a : b).get("/auth/session"));
    expect((await new Browser(api.base, "2001:db8:1:3::1", null).get("/auth/session")).status).toBe(401);
    expect(ipSubjects("::ffff:10.1.2.3")).toEqual({ ip: "v4:10.1.2.3" });
    expect(ipSubjects("2001:db8:1:2::1")).toEqual({ ip: "v6/64:2001:db8:1:2", net48: "v6/48:2001:db8:1" });
  }, 60_000);

  it("600 requests per minute per credential", async () => {
    const owner = api.browser();
    await owner.signUpAndIn(api.smtp);
    const org = (await owner.post("/orgs", { name: "Keys" })).body.organization.id;
    const key = (
      await owner.post(`/orgs/${org}/api-keys`, { name: "k", kind: "management", scopes: ["read"] })
    ).body.secret;
    await boundary(600, () =>
      new Browser(api.base, randomIp(), null).get(`/orgs/${org}`, { authorization: `Bearer ${key}` }),
    );
  }, 60_000);
});

describe("sign-in", () => {
  it("30 per 15 minutes per IP", async () => {
    const b = api.browser();
    await boundary(30, () => b.post("/auth/signin", { email: email(), password: PW }));
  });

  it("10 per 15 minutes per e-mail and IP; 50 per e-mail; a browser that signed in before is not counted per e-mail", async () => {
    const owner = api.browser();
    const { email: address } = await owner.signUpAndIn(api.smtp);
    const b = api.browser();
    await boundary(10, () => b.post("/auth/signin", { email: address, password: "wrong password here" }));
    // other IPs: 50 per address in all (one already counted above by owner's sign-in, ten by b)
    const over = await boundary(39, () =>
      api.browser().post("/auth/signin", { email: address, password: "wrong password here" }),
    );
    expect(over.status).toBe(429);
    // the right password from a new browser is refused too: the refused request changes nothing, signs nobody in
    const stranger = api.browser();
    expectLimited(await stranger.post("/auth/signin", { email: address, password: PW }));
    expect(stranger.cookies.has("svc_session")).toBe(false);
    // the owner's browser signed in before under this password and still can
    const again = new Browser(api.base, randomIp(), null);
    again.cookies.set("svc_known", owner.cookies.get("svc_known")!);
    expect((await again.post("/auth/signin", { email: address, password: PW })).status).toBe(200);
  }, 60_000);

  it("150 per 15 minutes per IPv6 /48", async () => {
    let i = 0;
    await boundary(150, () =>
      new Browser(api.base, `2001:db8:48:${(++i).toString(16)}::1`, null).post("/auth/signin", {
        email: email(),
        password: PW,
      }),
    );
    // 151 sign-ins each hash a password (the same work for unknown addresses): slow on a busy machine.
  }, 240_000);
});

describe("sign-up", () => {
  it("10 per hour per IP; the refused one creates no account", async () => {
    const b = api.browser();
    await boundary(10, () => b.post("/auth/signup", { email: email(), password: PW }));
    const before = await count("select count(*) as n from users");
    expectLimited(await b.post("/auth/signup", { email: email(), password: PW }));
    expect(await count("select count(*) as n from users")).toBe(before);
  }, 60_000);

  it("5 per hour per e-mail", async () => {
    const address = email();
    await boundary(5, () => api.browser().post("/auth/signup", { email: address, password: PW }));
  });

  it("50 per hour per IPv6 /48", async () => {
    let i = 0;
    await boundary(50, () =>
      new Browser(api.base, `2001:db8:50:${(++i).toString(16)}::1`, null).post("/auth/signup", {
        email: email(),
        password: PW,
      }),
    );
  }, 240_000);
});

describe("account routes", () => {
  it("POST /auth/password: 10 per 15 minutes per user; the refused one changes nothing", async () => {
    const b = api.browser();
    const { email: address } = await b.signUpAndIn(api.smtp);
    await boundary(10, () =>
      b.post("/auth/password", {
        current_password: "wrong password here",
        new_password: "whatever new password",
      }),
    );
    expectLimited(
      await b.post("/auth/password", { current_password: PW, new_password: "whatever new password" }),
    );
    expect((await api.browser().post("/auth/signin", { email: address, password: PW })).status).toBe(200);
  });

  it("POST /auth/email/resend: 1 per minute per e-mail, 20 per hour per IP, 5 per hour per e-mail", async () => {
    const address = email();
    await api.browser().post("/auth/signup", { email: address, password: PW });
    const sent = api.smtp.to(address).length;
    await boundary(1, () => api.browser().post("/auth/email/resend", { email: address }));
    expect(api.smtp.to(address).length).toBe(sent + 1);
    const b = api.browser();
    await boundary(20, () => b.post("/auth/email/resend", { email: email() }));
    // the hourly per-address budget, with its minute windows already past
    const other = email();
    await db.pool.query("insert into rate_limit_counters (key, window_start, count) values ($1, now(), 5)", [
      `resendPerEmailHour:${other}`,
    ]);
    expectLimited(await api.browser().post("/auth/email/resend", { email: other }));
  });

  it("POST /auth/email/verify: 60 per 15 minutes per IP", async () => {
    const b = api.browser();
    await boundary(60, () => b.post("/auth/email/verify", { token: "not-a-token" }));
  });

  it("POST /auth/email/change/approve and reject: 60 per 15 minutes per IP, shared", async () => {
    const b = api.browser();
    await boundary(60, (i) =>
      b.post(
        `/auth/email/change/${i % 2 ? "approve" : "reject"}`,
        i % 2 ? { token: "x", password: "y" } : { token: "x" },
      ),
    );
  });

  it("POST /me/email: 10 per hour per user", async () => {
    const b = api.browser();
    await b.signUpAndIn(api.smtp);
    await boundary(10, () => b.post("/me/email", { new_email: email(), password: "wrong password here" }));
  });

  it("POST /auth/password-reset: 20 per hour per IP; 5 per hour per e-mail and IP; the refused one sends nothing", async () => {
    const b = api.browser();
    await boundary(20, () => b.post("/auth/password-reset", { email: email() }));
    const c = api.browser();
    const { email: address } = await c.signUpAndIn(api.smtp);
    const sent = api.smtp.to(address).length;
    await boundary(5, () => c.post("/auth/password-reset", { email: address }));
    expect(api.smtp.to(address).length).toBe(sent + 5);
  });

  it("POST /auth/password-reset/confirm: 30 per 15 minutes per IP", async () => {
    const b = api.browser();
    await boundary(30, () =>
      b.post("/auth/password-reset/confirm", { token: "x", new_password: "a long enough password" }),
    );
  }, 60_000);
});

describe("invitations", () => {
  it("20 per hour per inviting user, 50 per hour per organization; the refused one records and sends nothing", async () => {
    const owner = api.browser();
    await owner.signUpAndIn(api.smtp);
    const org = (await owner.post("/orgs", { name: "Inviting" })).body.organization.id;
    await boundary(20, () => owner.post(`/orgs/${org}/invitations`, { email: email("inv"), role: "viewer" }));
    const before = await count("select count(*) as n from invitations where organization_id = $1", [org]);
    const sent = api.smtp.messages.length;
    expectLimited(await owner.post(`/orgs/${org}/invitations`, { email: email("inv"), role: "viewer" }));
    expect(await count("select count(*) as n from invitations where organization_id = $1", [org])).toBe(
      before,
    );
    expect(api.smtp.messages.length).toBe(sent);
    const admins: Browser[] = [];
    for (let i = 0; i < 2; i++) {
      const a = api.browser();
      const { userId } = await a.signUpAndIn(api.smtp);
      await db.pool.query(
        "insert into memberships (organization_id, user_id, role) values ($1, $2, 'admin')",
        [org, userId],
      );
      admins.push(a);
    }
    await boundary(30, (i) =>
      admins[i % 2]!.post(`/orgs/${org}/invitations`, { email: email("inv"), role: "viewer" }),
    );
  }, 60_000);

  it("POST /invitations/accept: 20 per 15 minutes per user", async () => {
    const b = api.browser();
    await b.signUpAndIn(api.smtp);
    await boundary(20, () => b.post("/invitations/accept", { token: "nope" }));
  });
});

describe("per-recipient e-mail budgets", () => {
  it("sends at most 5 password reset e-mails per hour to one address, answering normally", async () => {
    const owner = api.browser();
    const { email: address } = await owner.signUpAndIn(api.smtp);
    const before = api.smtp.to(address).length;
    for (let i = 0; i < 7; i++)
      expect((await api.browser().post("/auth/password-reset", { email: address })).status).toBe(202);
    expect(api.smtp.to(address).length - before).toBe(5);
  });

  it("sends at most 10 account e-mails per hour to one address", async () => {
    const address = email();
    const b = api.browser();
    // sign-up plus resends past their per-minute limit (minute windows emptied between)
    await b.post("/auth/signup", { email: address, password: PW });
    for (let i = 0; i < 12; i++) {
      await db.pool.query("delete from rate_limit_counters where key like $1", [
        `resendPerEmail%:${address}`,
      ]);
      expect((await api.browser().post("/auth/email/resend", { email: address })).status).toBe(202);
    }
    expect(api.smtp.to(address).length).toBe(10);
  });
});
