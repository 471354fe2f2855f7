/**
 * Approver e-mails (issue 42 point 4; docs/dashboard.md "Approver e-mails"), through a real
 * Gateway, real PostgreSQL and a real SMTP server: two workers on two pools (as two api processes)
 * send each eligible approver exactly one e-mail per held call; the e-mail names the organization,
 * agent, tool, amount and expiry with the approval's link and none of the call's arguments; no one
 * outside the request's approvers (another role, another organization, a person who turned the
 * e-mails off with PATCH /me) gets one. PATCH /me refuses bad input with VALIDATION_FAILED and
 * changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, type Pool } from "@countersign/core/store";
import { createLogger } from "@countersign/core/server";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { startCloudApi, type CloudApi } from "../../../test/fixtures/cloud-api.js";
import {
  bindPersonalIdentity,
  createAuthorizationWorld,
  type AuthorizationWorld,
} from "../../../test/fixtures/authorization.js";
import { createMember } from "../../../test/fixtures/organization.js";
import { startTestGateway, type TestGateway } from "../../../test/gateway/harness.js";
import { smtpMailer } from "../mail/smtp.js";
import type { Mailer } from "../mail/mailer.js";
import { startApprovalNotices } from "./worker.js";

let db: TestDatabase;
let api: CloudApi;
let gw: TestGateway;
let pools: Pool[];
let mailers: Mailer[];
let workers: { stop(): Promise<void> }[];
const DASHBOARD = "https://dashboard.example.test";

beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db, { defaultPlan: "enterprise" });
  api = await startCloudApi(db, { defaultPlan: "enterprise", extra: { keyHashSecret: gw.keyHashSecret } });
  // Two api processes' workers: their own pools and SMTP connections, one mail server.
  pools = [1, 2].map((n) => createPool(db.url, { applicationName: `api-${n}`, max: 3 }));
  mailers = pools.map(() => smtpMailer(api.smtp.url, "Countersign <no-reply@countersign.test>"));
  workers = pools.map((pool, i) =>
    startApprovalNotices({
      pool,
      mailer: mailers[i]!,
      dashboardOrigin: DASHBOARD,
      log: createLogger("api", "silent"),
      intervalMs: 50,
    }),
  );
});
afterAll(async () => {
  for (const w of workers ?? []) await w.stop();
  for (const m of mailers ?? []) m.close?.();
  for (const p of pools ?? []) await p.end();
  await api?.close();
  await gw?.close();
  await db?.drop();
});

const approvalMails = (address: string) =>
  api.smtp.to(address).filter((m) => m.subject.startsWith("Approval needed"));
const emailOf = async (userId: string) =>
  (await db.pool.query<{ email: string }>("select email from users where id = $1", [userId])).rows[0]!.email;

/** Waits until every given request is marked notified by a worker (the mail is sent right after). */
async function notified(ids: string[]): Promise<void> {
  for (;;) {
    const { rows } = await db.pool.query<{ n: number }>(
      "select count(*)::int as n from approval_requests where id = any($1) and notified_at is not null",
      [ids],
    );
    if (rows[0]!.n === ids.length) break;
    await new Promise((r) => setTimeout(r, 50));
  }
}
/** Waits until `address` has `n` approval e-mails (never more is checked by the caller). */
async function mails(address: string, n: number) {
  while (approvalMails(address).length < n) await new Promise((r) => setTimeout(r, 50));
  return approvalMails(address);
}

async function hold(w: AuthorizationWorld, amount: number, key: string): Promise<string> {
  const held = await gw.authorize(w.key, {
    tool: w.tool,
    arguments: { amount, order: `secret-order-${key}`, note: "do-not-mail-this-value" },
    idempotency_key: key,
  });
  expect(held.body).toMatchObject({ status: "approval_pending" });
  return held.body.approval_request_id as string;
}

describe("approver e-mails", () => {
  it("go once to each eligible approver of the organization, with the request's facts and link, never its arguments", async () => {
    const a = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    const b = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    // A second admin of A with a key: also an approver. A viewer of A with a key: not one (the rule names owner and admin).
    const admin2 = await createMember(db.pool, a.organizationId, "admin");
    await bindPersonalIdentity(db.pool, a.organizationId, admin2);
    const viewer = await createMember(db.pool, a.organizationId, "viewer");
    await bindPersonalIdentity(db.pool, a.organizationId, viewer);
    const admin1Email = await emailOf(a.approver.userId);
    const admin2Email = await emailOf(admin2);
    const viewerEmail = await emailOf(viewer);
    const ownerEmail = await emailOf(a.ownerId);
    const otherEmail = await emailOf(b.approver.userId);

    // Six held calls at once in A, one in B; both workers race for them.
    const ids = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => hold(a, 200 + n, `a-${n}`)));
    const otherId = await hold(b, 777, "b-1");
    await notified([...ids, otherId]);

    for (const address of [admin1Email, admin2Email]) {
      const got = await mails(address, ids.length);
      // Exactly one e-mail per request: six links, each a different request of A.
      expect(got).toHaveLength(ids.length);
      const links = got.map((m) => /https:\/\/\S+\/approvals\/[0-9a-f-]+/.exec(m.text)?.[0]);
      expect(new Set(links)).toEqual(
        new Set(ids.map((id) => `${DASHBOARD}/orgs/${a.organizationId}/approvals/${id}`)),
      );
      for (const m of got) {
        expect(m.subject).toContain(a.agentName);
        expect(m.text).toContain("Test org");
        expect(m.text).toContain(`Agent: ${a.agentName}`);
        expect(m.text).toContain(`Tool: ${a.tool}`);
        expect(m.text).toMatch(/Amount: 20[1-6] EUR/);
        expect(m.text).toMatch(/Expires: \d{4}-\d{2}-\d{2}T/);
        expect(m.raw).not.toContain("secret-order");
        expect(m.raw).not.toContain("do-not-mail-this-value");
      }
    }
    // B's approver got only B's request; A's viewer and owner (no key) got none.
    const others = await mails(otherEmail, 1);
    expect(others).toHaveLength(1);
    expect(others[0]!.text).toContain(`/orgs/${b.organizationId}/approvals/${otherId}`);
    expect(others[0]!.text).not.toContain(a.organizationId);
    expect(approvalMails(viewerEmail)).toHaveLength(0);
    expect(approvalMails(ownerEmail)).toHaveLength(0);
    // Every request was claimed once: no address got a request's link twice.
    const everyLink = api.smtp.messages
      .filter((m) => m.subject.startsWith("Approval needed"))
      .map((m) => `${m.to.join(",")} ${/\/approvals\/\S+/.exec(m.text)?.[0]}`);
    expect(new Set(everyLink).size).toBe(everyLink.length);
  });

  it("are not sent to a person who turned them off with PATCH /me; bad input is refused and changes nothing", async () => {
    const w = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
    const person = api.browser();
    const { email, userId } = await person.signUpAndIn(api.smtp);
    await db.pool.query("insert into memberships (organization_id, user_id, role) values ($1, $2, 'admin')", [
      w.organizationId,
      userId,
    ]);
    await bindPersonalIdentity(db.pool, w.organizationId, userId);
    expect((await person.get("/auth/session")).body.session.user.approval_emails).toBe(true);

    for (const body of [{ approval_emails: "no" }, {}, { approval_emails: false, email: "x@example.test" }]) {
      const refused = await person.patch("/me", body);
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.error.code).toBe("VALIDATION_FAILED");
      expect(refused.body.error.message).toMatch(/\S/);
      expect((await person.get("/auth/session")).body.session.user.approval_emails).toBe(true);
    }
    const off = await person.patch("/me", { approval_emails: false });
    expect(off.status, off.text).toBe(200);
    expect(off.body.user).toMatchObject({ id: userId, email, approval_emails: false });
    expect((await person.get("/auth/session")).body.session.user.approval_emails).toBe(false);

    const first = await hold(w, 300, "off-1");
    await notified([first]);
    const approverEmail = await emailOf(w.approver.userId);
    await mails(approverEmail, 1);
    expect(approvalMails(email)).toHaveLength(0);

    // Turned on again: the next request is e-mailed to them too.
    expect((await person.patch("/me", { approval_emails: true })).body.user.approval_emails).toBe(true);
    const second = await hold(w, 400, "on-1");
    await notified([second]);
    const got = await mails(email, 1);
    expect(got).toHaveLength(1);
    expect(got[0]!.text).toContain(`/approvals/${second}`);
  });
});
