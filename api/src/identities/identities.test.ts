/**
 * The organization principal and personal identities through the real server
 * (SPEC 2.1, 8.5): registration, replacement, revocation and equivocation of
 * the principal; challenges, binding (at most 5), revocation and never
 * re-binding personal identities. Every refusal is checked to change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPrincipalValid, principalOf } from "@countersign/core/identities";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { startCloudApi, type Answer, type Browser, type CloudApi } from "../../../test/fixtures/cloud-api.js";
import {
  newIdentity,
  nextDocument,
  signChallenge,
  type TestIdentity,
} from "../../../test/fixtures/identities.js";

let db: TestDatabase;
let api: CloudApi;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startCloudApi(db, { defaultPlan: "startup" });
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

async function ownerWithOrg(): Promise<{ b: Browser; org: string; userId: string }> {
  const b = api.browser();
  const { userId } = await b.signUpAndIn(api.smtp);
  const res = await b.post("/orgs", { name: "Principal Co" });
  expect(res.status).toBe(201);
  return { b, org: res.body.organization.id, userId };
}

/** Everything the identity routes write, to check that a refusal wrote nothing. */
async function snapshot() {
  const { rows } = await db.pool.query(
    `select (select json_agg(i order by kid) from identities i where kind in ('principal', 'personal')) as identities,
            (select json_agg(c order by id) from identity_challenges c) as challenges,
            (select count(*) from audit_log) as audits`,
  );
  return rows[0];
}

async function refusedUnchanged(call: () => Promise<Answer>, status: number, code: string) {
  const before = await snapshot();
  const res = await call();
  expect(res.status).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(await snapshot()).toEqual(before);
  return res;
}

describe("organization principal", () => {
  it("has none at first, then the owner registers one that is valid for decisions", async () => {
    const { b, org } = await ownerWithOrg();
    expect((await b.get(`/orgs/${org}/principal`)).body).toEqual({ principal: null, history: [] });
    const p = newIdentity("principal", { organization_id: org, id: org, name: "Principal Co" });
    const res = await b.post(`/orgs/${org}/principal`, { document: p.documents[0] });
    expect(res.status).toBe(201);
    expect(res.body.principal).toMatchObject({ kid: p.kid, status: "active", valid: true });
    expect(res.body.principal.documents).toEqual(p.documents);
    expect(isPrincipalValid(await principalOf(db.pool, org))).toBe(true);
    const audit = await db.pool.query(
      "select action, target_id from audit_log where organization_id = $1 and action like 'principal.%'",
      [org],
    );
    expect(audit.rows).toEqual([{ action: "principal.registered", target_id: p.kid }]);
    // the same document again is accepted and changes nothing
    const again = await b.post(`/orgs/${org}/principal`, { document: p.documents[0] });
    expect(again.status).toBe(200);
    expect(again.body.outcome).toBe("unchanged");
  });

  it("refuses bad documents with IDENTITY_INVALID, IDENTITY_WRONG_ACTOR_TYPE, CONFLICT and changes nothing", async () => {
    const { b, org } = await ownerWithOrg();
    const p = newIdentity("principal", { organization_id: org, id: org });
    const tampered = {
      ...p.documents[0]!,
      body: { ...p.documents[0]!.body, subject: { organization_id: org, id: org, name: "Forged" } },
    };
    await refusedUnchanged(
      () => b.post(`/orgs/${org}/principal`, { document: tampered }),
      422,
      "IDENTITY_INVALID",
    );
    const other = newIdentity("principal", { organization_id: "another-org", id: "another-org" });
    await refusedUnchanged(
      () => b.post(`/orgs/${org}/principal`, { document: other.documents[0] }),
      422,
      "IDENTITY_INVALID",
    );
    const person = newIdentity("person", { organization_id: org, id: org });
    await refusedUnchanged(
      () => b.post(`/orgs/${org}/principal`, { document: person.documents[0] }),
      422,
      "IDENTITY_WRONG_ACTOR_TYPE",
    );
    await refusedUnchanged(
      () => b.post(`/orgs/${org}/principal`, { document: p.documents[0], extra: 1 }),
      400,
      "VALIDATION_FAILED",
    );
    expect((await b.post(`/orgs/${org}/principal`, { document: p.documents[0] })).status).toBe(201);
    // a second principal that does not say it replaces the first
    const second = newIdentity("principal", { organization_id: org, id: org });
    const res = await refusedUnchanged(
      () => b.post(`/orgs/${org}/principal`, { document: second.documents[0] }),
      409,
      "CONFLICT",
    );
    expect(res.body.error.details).toMatchObject({ reason: "PRINCIPAL_EXISTS", current_kid: p.kid });
  });

  it("is the owner's to set: an admin gets 403 and nothing changes", async () => {
    const { b, org } = await ownerWithOrg();
    const admin = api.browser();
    const { email } = await admin.signUpAndIn(api.smtp);
    expect((await b.post(`/orgs/${org}/invitations`, { email, role: "admin" })).status).toBe(201);
    expect(
      (await admin.post("/invitations/accept", { token: api.smtp.lastToken(email, "invitations/accept") }))
        .status,
    ).toBe(200);
    const p = newIdentity("principal", { organization_id: org, id: org });
    await refusedUnchanged(
      () => admin.post(`/orgs/${org}/principal`, { document: p.documents[0] }),
      403,
      "FORBIDDEN",
    );
    expect((await admin.get(`/orgs/${org}/principal`)).status).toBe(200);
  });

  it("replaces a principal with or without the old key's own replaced document", async () => {
    const { b, org } = await ownerWithOrg();
    const first = newIdentity("principal", { organization_id: org, id: org });
    await b.post(`/orgs/${org}/principal`, { document: first.documents[0] });
    // with the old key: its log says replaced_by the new KID
    const second = newIdentity("principal", { organization_id: org, id: org }, { replaces: first.kid });
    const predecessor = nextDocument(first, { status: "replaced", replaced_by: second.kid });
    const res = await b.post(`/orgs/${org}/principal`, { document: second.documents[0], predecessor });
    expect(res.status).toBe(201);
    expect(res.body.outcome).toBe("replaced");
    const got = (await b.get(`/orgs/${org}/principal`)).body;
    expect(got.principal.kid).toBe(second.kid);
    expect(got.history.map((h: { kid: string; status: string }) => [h.kid, h.status])).toEqual([
      [second.kid, "active"],
      [first.kid, "replaced"],
    ]);
    expect(got.history[1].documents).toHaveLength(2);
    // without it (the old key was lost)
    const third = newIdentity("principal", { organization_id: org, id: org }, { replaces: second.kid });
    expect((await b.post(`/orgs/${org}/principal`, { document: third.documents[0] })).status).toBe(201);
    expect((await principalOf(db.pool, org))!.kid).toBe(third.kid);
    // a document after the replaced one is equivocation by the old key (docs/evidence.md 3); the current principal is untouched
    const late = await b.post(`/orgs/${org}/principal`, {
      document: nextDocument(first, { status: "active" }),
    });
    expect(late.status).toBe(422);
    expect(late.body.error.code).toBe("IDENTITY_EQUIVOCATION");
    expect(
      (await db.pool.query("select status from identities where kid = $1", [first.kid])).rows[0].status,
    ).toBe("equivocated");
    expect((await b.get(`/orgs/${org}/principal`)).body.principal).toMatchObject({
      kid: third.kid,
      valid: true,
    });
  });

  it("revokes the principal through its own next document: no principal is valid afterwards", async () => {
    const { b, org } = await ownerWithOrg();
    const p = newIdentity("principal", { organization_id: org, id: org });
    await b.post(`/orgs/${org}/principal`, { document: p.documents[0] });
    const res = await b.post(`/orgs/${org}/principal`, { document: nextDocument(p, { status: "revoked" }) });
    expect(res.status).toBe(200);
    expect(res.body.principal.status).toBe("revoked");
    expect(await principalOf(db.pool, org)).toBeUndefined();
  });

  it("marks a principal whose documents conflict as equivocated, for good, and answers IDENTITY_EQUIVOCATION", async () => {
    const { b, org } = await ownerWithOrg();
    const p = newIdentity("principal", { organization_id: org, id: org });
    await b.post(`/orgs/${org}/principal`, { document: p.documents[0] });
    const one = nextDocument(p, { status: "active", name: "One" });
    expect((await b.post(`/orgs/${org}/principal`, { document: one })).status).toBe(200);
    p.documents.pop();
    const fork = nextDocument(p, { status: "active", name: "Two" }); // same seq, another body
    const res = await b.post(`/orgs/${org}/principal`, { document: fork });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("IDENTITY_EQUIVOCATION");
    const stored = await principalOf(db.pool, org);
    expect(stored).toMatchObject({ kid: p.kid, status: "equivocated" });
    expect(stored!.documents).toHaveLength(3); // the conflicting document is kept as proof
    expect(isPrincipalValid(stored)).toBe(false);
    const audit = await db.pool.query(
      "select 1 from audit_log where organization_id = $1 and action = 'principal.equivocated'",
      [org],
    );
    expect(audit.rowCount).toBe(1);
    // nothing from that key is accepted again, not even its first document
    await refusedUnchanged(
      () => b.post(`/orgs/${org}/principal`, { document: p.documents[0] }),
      422,
      "IDENTITY_EQUIVOCATION",
    );
    // an owner replaces it with a new principal
    const next = newIdentity("principal", { organization_id: org, id: org }, { replaces: p.kid });
    expect((await b.post(`/orgs/${org}/principal`, { document: next.documents[0] })).status).toBe(201);
    expect((await b.get(`/orgs/${org}/principal`)).body.principal).toMatchObject({
      kid: next.kid,
      valid: true,
    });
  });
});

describe("personal identities", () => {
  async function bind(b: Browser, userId: string) {
    const c = await b.post("/me/identity-challenges");
    expect(c.status).toBe(201);
    const id = newIdentity("person", { organization_id: "personal", id: userId, name: "Ada" });
    const res = await b.post("/me/identities", {
      challenge_id: c.body.challenge.id,
      signature: signChallenge(id, c.body.challenge.challenge),
      document: id.documents[0],
    });
    return { id, res, challenge: c.body.challenge };
  }

  it("binds an identity whose key signed the challenge, lists it, and revokes it", async () => {
    const b = api.browser();
    const { userId } = await b.signUpAndIn(api.smtp);
    const { id, res } = await bind(b, userId);
    expect(res.status).toBe(201);
    expect(res.body.identity).toMatchObject({ kid: id.kid, status: "active" });
    expect((await b.get("/me/identities")).body.items.map((i: { kid: string }) => i.kid)).toEqual([id.kid]);
    const del = await b.delete(`/me/identities/${id.kid}`);
    expect(del.status).toBe(200);
    expect(del.body.identity.status).toBe("revoked");
    const audits = await db.pool.query("select action from audit_log where target_id = $1 order by id", [
      id.kid,
    ]);
    expect(audits.rows.map((r) => r.action)).toEqual(["identity.bound", "identity.revoked"]);
  });

  it("refuses a wrong signature, a used or foreign challenge, a foreign subject, and changes nothing", async () => {
    const b = api.browser();
    const { userId } = await b.signUpAndIn(api.smtp);
    const c = (await b.post("/me/identity-challenges")).body.challenge;
    const id = newIdentity("person", { organization_id: "personal", id: userId });
    const other = newIdentity("person", { organization_id: "personal", id: userId });
    await refusedUnchanged(
      () =>
        b.post("/me/identities", {
          challenge_id: c.id,
          signature: signChallenge(other, c.challenge),
          document: id.documents[0],
        }),
      422,
      "CHALLENGE_INVALID",
    );
    await refusedUnchanged(
      () =>
        b.post("/me/identities", {
          challenge_id: c.id,
          signature: signChallenge(id, "something else"),
          document: id.documents[0],
        }),
      422,
      "CHALLENGE_INVALID",
    );
    const stranger = newIdentity("person", { organization_id: "personal", id: "someone-else" });
    await refusedUnchanged(
      () =>
        b.post("/me/identities", {
          challenge_id: c.id,
          signature: signChallenge(stranger, c.challenge),
          document: stranger.documents[0],
        }),
      422,
      "IDENTITY_INVALID",
    );
    const principal = newIdentity("principal", { organization_id: "o", id: userId });
    await refusedUnchanged(
      () =>
        b.post("/me/identities", {
          challenge_id: c.id,
          signature: signChallenge(principal, c.challenge),
          document: principal.documents[0],
        }),
      422,
      "IDENTITY_WRONG_ACTOR_TYPE",
    );
    // another person's challenge
    const eve = api.browser();
    const { userId: eveId } = await eve.signUpAndIn(api.smtp);
    const eves = newIdentity("person", { organization_id: "personal", id: eveId });
    await refusedUnchanged(
      () =>
        eve.post("/me/identities", {
          challenge_id: c.id,
          signature: signChallenge(eves, c.challenge),
          document: eves.documents[0],
        }),
      422,
      "CHALLENGE_INVALID",
    );
    // expired
    await db.pool.query(
      "update identity_challenges set expires_at = now() - interval '1 second' where id = $1",
      [c.id],
    );
    await refusedUnchanged(
      () =>
        b.post("/me/identities", {
          challenge_id: c.id,
          signature: signChallenge(id, c.challenge),
          document: id.documents[0],
        }),
      422,
      "CHALLENGE_INVALID",
    );
    // a used challenge
    const ok = await bind(b, userId);
    expect(ok.res.status).toBe(201);
    const again = newIdentity("person", { organization_id: "personal", id: userId });
    await refusedUnchanged(
      () =>
        b.post("/me/identities", {
          challenge_id: ok.challenge.id,
          signature: signChallenge(again, ok.challenge.challenge),
          document: again.documents[0],
        }),
      422,
      "CHALLENGE_INVALID",
    );
  });

  it("binds at most 5 at a time (CONFLICT TOO_MANY_IDENTITIES) and never binds a revoked identity again", async () => {
    const b = api.browser();
    const { userId } = await b.signUpAndIn(api.smtp);
    const bound: TestIdentity[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await bind(b, userId);
      expect(r.res.status).toBe(201);
      bound.push(r.id);
    }
    const c = (await b.post("/me/identity-challenges")).body.challenge;
    const sixth = newIdentity("person", { organization_id: "personal", id: userId });
    const res = await refusedUnchanged(
      () =>
        b.post("/me/identities", {
          challenge_id: c.id,
          signature: signChallenge(sixth, c.challenge),
          document: sixth.documents[0],
        }),
      409,
      "CONFLICT",
    );
    expect(res.body.error.details.reason).toBe("TOO_MANY_IDENTITIES");
    // revoking one makes room, but the revoked one is never bound again
    expect((await b.delete(`/me/identities/${bound[0]!.kid}`)).status).toBe(200);
    await refusedUnchanged(
      () =>
        b.post("/me/identities", {
          challenge_id: c.id,
          signature: signChallenge(bound[0]!, c.challenge),
          document: bound[0]!.documents[0],
        }),
      409,
      "IDENTITY_ALREADY_BOUND",
    );
    expect(
      (
        await b.post("/me/identities", {
          challenge_id: c.id,
          signature: signChallenge(sixth, c.challenge),
          document: sixth.documents[0],
        })
      ).status,
    ).toBe(201);
    // an already bound identity cannot be bound by someone else either
    const eve = api.browser();
    const { userId: eveId } = await eve.signUpAndIn(api.smtp);
    const ec = (await eve.post("/me/identity-challenges")).body.challenge;
    const copied = {
      ...bound[1]!.documents[0]!,
      body: {
        ...bound[1]!.documents[0]!.body,
        subject: { ...bound[1]!.documents[0]!.body.subject, id: eveId },
      },
    };
    await refusedUnchanged(
      () =>
        eve.post("/me/identities", {
          challenge_id: ec.id,
          signature: signChallenge(bound[1]!, ec.challenge),
          document: copied,
        }),
      422,
      "IDENTITY_INVALID",
    );
  });

  it("answers 404 for another person's identity and changes nothing", async () => {
    const b = api.browser();
    const { userId } = await b.signUpAndIn(api.smtp);
    const { id } = await bind(b, userId);
    const eve = api.browser();
    await eve.signUpAndIn(api.smtp);
    await refusedUnchanged(() => eve.delete(`/me/identities/${id.kid}`), 404, "NOT_FOUND");
  });
});
