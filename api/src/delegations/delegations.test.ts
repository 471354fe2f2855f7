/**
 * Delegations through the real server (SPEC 2.5, 8.5): submitted already
 * signed by the organization principal, verified, at most 100 active per
 * agent, revoked by a REVOCATION of the same principal; refusals change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { startCloudApi, type CloudApi } from "../../../test/fixtures/cloud-api.js";
import {
  addMember,
  expectRefusedUnchanged,
  managementKey,
  orgWithOwner,
  registerPrincipal,
} from "../../../test/fixtures/configuration.js";
import {
  newIdentity,
  nextDocument,
  signDelegation,
  signRevocation,
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

const inDays = (d: number) => new Date(Date.now() + d * 86_400_000);

async function setup() {
  const o = await orgWithOwner(api);
  const agent = (await o.owner.post(`/orgs/${o.org}/agents`, { name: "payer" })).body.agent.id as string;
  return { o, agent };
}

describe("delegations", () => {
  it("stores a verified delegation, lists it, and revokes it with the principal's REVOCATION", async () => {
    const { o, agent } = await setup();
    const p = await registerPrincipal(o);
    const d = signDelegation(p, {
      organization_id: o.org,
      agent_id: agent,
      permissions: ["payments.*"],
      expires_at: inDays(30),
    });
    const res = await o.owner.post(`/orgs/${o.org}/agents/${agent}/delegations`, { delegation: d });
    expect(res.status).toBe(201);
    expect(res.body.delegation).toMatchObject({
      object_id: d.id,
      permissions: ["payments.*"],
      state: "active",
      object: d,
    });
    const list = await o.owner.get(`/orgs/${o.org}/agents/${agent}/delegations`);
    expect(list.body.items.map((x: { id: string }) => x.id)).toEqual([res.body.delegation.id]);
    const rev = await o.owner.post(`/orgs/${o.org}/delegations/${res.body.delegation.id}/revoke`, {
      revocation: signRevocation(p, d.id),
    });
    expect(rev.status).toBe(200);
    expect(rev.body.delegation.state).toBe("revoked");
    // what the decision pipeline reads: no unrevoked delegation left
    const live = await db.pool.query("select 1 from delegations where agent_id = $1 and revoked_at is null", [
      agent,
    ]);
    expect(live.rowCount).toBe(0);
    const audit = await db.pool.query("select action from audit_log where target_id = $1 order by id", [
      res.body.delegation.id,
    ]);
    expect(audit.rows.map((r) => r.action)).toEqual(["delegation.created", "delegation.revoked"]);
    await expectRefusedUnchanged(
      db.pool,
      () =>
        o.owner.post(`/orgs/${o.org}/delegations/${res.body.delegation.id}/revoke`, {
          revocation: signRevocation(p, d.id),
        }),
      409,
      "INVALID_STATE",
    );
  });

  it("answers NO_PRINCIPAL without a principal and IDENTITY_EQUIVOCATION for an equivocated one", async () => {
    const { o, agent } = await setup();
    const stranger = newIdentity("principal", { organization_id: o.org, id: o.org });
    const d = signDelegation(stranger, {
      organization_id: o.org,
      agent_id: agent,
      permissions: ["*"],
      expires_at: inDays(1),
    });
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.post(`/orgs/${o.org}/agents/${agent}/delegations`, { delegation: d }),
      409,
      "NO_PRINCIPAL",
    );
    const p = await registerPrincipal(o);
    const one = nextDocument(p, { status: "active", name: "A" });
    await o.owner.post(`/orgs/${o.org}/principal`, { document: one });
    p.documents.pop();
    expect(
      (
        await o.owner.post(`/orgs/${o.org}/principal`, {
          document: nextDocument(p, { status: "active", name: "B" }),
        })
      ).status,
    ).toBe(422);
    const d2 = signDelegation(p, {
      organization_id: o.org,
      agent_id: agent,
      permissions: ["*"],
      expires_at: inDays(1),
    });
    await expectRefusedUnchanged(
      db.pool,
      () => o.owner.post(`/orgs/${o.org}/agents/${agent}/delegations`, { delegation: d2 }),
      422,
      "IDENTITY_EQUIVOCATION",
    );
  });

  it("refuses with VERIFICATION_FAILED what the principal did not sign for this agent, and changes nothing", async () => {
    const { o, agent } = await setup();
    const p = await registerPrincipal(o);
    const other = await o.owner.post(`/orgs/${o.org}/agents`, { name: "other" });
    const post = (delegation: unknown) =>
      o.owner.post(`/orgs/${o.org}/agents/${agent}/delegations`, { delegation });
    const cases: [string, unknown][] = [
      [
        "SIGNATURE_INVALID",
        {
          ...signDelegation(p, {
            organization_id: o.org,
            agent_id: agent,
            permissions: ["a"],
            expires_at: inDays(1),
          }),
          signature: signDelegation(p, {
            organization_id: o.org,
            agent_id: agent,
            permissions: ["b"],
            expires_at: inDays(1),
          }).signature,
        },
      ],
      [
        "IDENTITY_UNKNOWN",
        signDelegation(newIdentity("principal", { organization_id: o.org, id: o.org }), {
          organization_id: o.org,
          agent_id: agent,
          permissions: ["a"],
          expires_at: inDays(1),
        }),
      ],
      [
        "DELEGATION_INVALID",
        signDelegation(p, {
          organization_id: o.org,
          agent_id: other.body.agent.id,
          permissions: ["a"],
          expires_at: inDays(1),
        }),
      ],
      [
        "DELEGATION_INVALID",
        signDelegation(p, {
          organization_id: "00000000-0000-4000-8000-000000000000",
          agent_id: agent,
          permissions: ["a"],
          expires_at: inDays(1),
        }),
      ],
      [
        "DELEGATION_EXPIRED",
        signDelegation(p, {
          organization_id: o.org,
          agent_id: agent,
          permissions: ["a"],
          expires_at: new Date(Date.now() - 1000),
          issued_at: new Date(Date.now() - 5000),
        }),
      ],
      [
        "DELEGATION_INVALID",
        signDelegation(p, {
          organization_id: o.org,
          agent_id: agent,
          permissions: ["a"],
          expires_at: inDays(2),
          issued_at: inDays(1),
        }),
      ],
      ["OBJECT_MALFORMED", { id: "ko_x", body: {}, signature: "x" }],
      ["OBJECT_WRONG_TYPE", signRevocation(p, `ko_${"0".repeat(64)}`)],
    ];
    for (const [serviceCode, object] of cases) {
      const res = await expectRefusedUnchanged(db.pool, () => post(object), 422, "VERIFICATION_FAILED");
      expect(res.body.error.details.service_code).toBe(serviceCode);
    }
    // the same delegation twice
    const d = signDelegation(p, {
      organization_id: o.org,
      agent_id: agent,
      permissions: ["a"],
      expires_at: inDays(1),
    });
    expect((await post(d)).status).toBe(201);
    const dup = await expectRefusedUnchanged(db.pool, () => post(d), 409, "CONFLICT");
    expect(dup.body.error.details.reason).toBe("ALREADY_SUBMITTED");
  });

  it("keeps at most 100 active delegations per agent (CONFLICT TOO_MANY_DELEGATIONS); expired and revoked ones do not count", async () => {
    const { o, agent } = await setup();
    const p = await registerPrincipal(o);
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) {
      const res = await o.owner.post(`/orgs/${o.org}/agents/${agent}/delegations`, {
        delegation: signDelegation(p, {
          organization_id: o.org,
          agent_id: agent,
          permissions: [`act.${i}`],
          expires_at: inDays(1),
        }),
      });
      expect(res.status).toBe(201);
      ids.push(res.body.delegation.object_id);
    }
    const extra = signDelegation(p, {
      organization_id: o.org,
      agent_id: agent,
      permissions: ["act.extra"],
      expires_at: inDays(1),
    });
    const res = await expectRefusedUnchanged(
      db.pool,
      () => o.owner.post(`/orgs/${o.org}/agents/${agent}/delegations`, { delegation: extra }),
      409,
      "CONFLICT",
    );
    expect(res.body.error.details.reason).toBe("TOO_MANY_DELEGATIONS");
    await db.pool.query(
      "update delegations set expires_at = now() - interval '1 second' where object_id = $1",
      [ids[0]],
    );
    expect(
      (await o.owner.post(`/orgs/${o.org}/agents/${agent}/delegations`, { delegation: extra })).status,
    ).toBe(201);
  });

  it("takes a revocation only from the delegation's own principal, for that delegation", async () => {
    const { o, agent } = await setup();
    const p = await registerPrincipal(o);
    const d = signDelegation(p, {
      organization_id: o.org,
      agent_id: agent,
      permissions: ["a"],
      expires_at: inDays(1),
    });
    const id = (await o.owner.post(`/orgs/${o.org}/agents/${agent}/delegations`, { delegation: d })).body
      .delegation.id;
    const impostor = newIdentity("principal", { organization_id: o.org, id: o.org });
    const r1 = await expectRefusedUnchanged(
      db.pool,
      () =>
        o.owner.post(`/orgs/${o.org}/delegations/${id}/revoke`, {
          revocation: signRevocation(impostor, d.id),
        }),
      422,
      "VERIFICATION_FAILED",
    );
    expect(r1.body.error.details.service_code).toBe("IDENTITY_UNKNOWN");
    const r2 = await expectRefusedUnchanged(
      db.pool,
      () =>
        o.owner.post(`/orgs/${o.org}/delegations/${id}/revoke`, {
          revocation: signRevocation(p, `ko_${"1".repeat(64)}`),
        }),
      422,
      "VERIFICATION_FAILED",
    );
    expect(r2.body.error.details.service_code).toBe("REVOCATION_INVALID");
    await expectRefusedUnchanged(
      db.pool,
      () =>
        o.owner.post(`/orgs/${o.org}/delegations/00000000-0000-4000-8000-000000000000/revoke`, {
          revocation: signRevocation(p, d.id),
        }),
      404,
      "NOT_FOUND",
    );
  });

  it("is for Admins without keys: a developer and a key get 403 FORBIDDEN, and read keys may list", async () => {
    const { o, agent } = await setup();
    const p = await registerPrincipal(o);
    const d = signDelegation(p, {
      organization_id: o.org,
      agent_id: agent,
      permissions: ["a"],
      expires_at: inDays(1),
    });
    const dev = await addMember(api, o, "developer");
    const key = await managementKey(api, o, ["read", "agents:write"]);
    await expectRefusedUnchanged(
      db.pool,
      () => dev.b.post(`/orgs/${o.org}/agents/${agent}/delegations`, { delegation: d }),
      403,
      "FORBIDDEN",
    );
    await expectRefusedUnchanged(
      db.pool,
      () => key("POST", `/orgs/${o.org}/agents/${agent}/delegations`, { delegation: d }),
      403,
      "FORBIDDEN",
    );
    expect((await key("GET", `/orgs/${o.org}/agents/${agent}/delegations`)).status).toBe(200);
  });
});
