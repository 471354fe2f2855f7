/**
 * GET /gateway/identity (SPEC 4.4, docs/gateway.md "The Gateway identity"): the installation's
 * Gateway identity document, for a signed-in person or a management key of any scope; 404 until a
 * Gateway registered one. The document answered verifies on its own and is the one that signs
 * receipts (a verifier pins its KID as trusted issuer).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerGatewayIdentity } from "@countersign/core/identities";
import { generateSeed, verifyIdentityDocument } from "@countersign/protocol/evidence";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { startCloudApi, type CloudApi } from "../../../test/fixtures/cloud-api.js";
import { managementKey, orgWithOwner, type OrgWithOwner } from "../../../test/fixtures/configuration.js";

let db: TestDatabase;
let api: CloudApi;
let o: OrgWithOwner;

beforeAll(async () => {
  db = await createTestDatabase();
  // No signing key: this Cloud API registers no Gateway identity of its own.
  api = await startCloudApi(db);
  o = await orgWithOwner(api);
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

describe("GET /gateway/identity", () => {
  it("answers 404 NOT_FOUND while no Gateway identity is registered", async () => {
    const res = await o.owner.get("/gateway/identity");
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
  });

  it("answers the registered identity's document, which verifies, to a person and to a key of any scope", async () => {
    const gateway = await registerGatewayIdentity(db.pool, generateSeed());
    const res = await o.owner.get("/gateway/identity");
    expect(res.status).toBe(200);
    expect(res.body.identity).toMatchObject({
      kid: gateway.signer.kid,
      created_at: expect.any(String),
    });
    const checked = verifyIdentityDocument(res.body.identity.document);
    expect(checked.ok).toBe(true);
    expect(res.body.identity.document.body.kid).toBe(gateway.signer.kid);
    expect(res.body.identity.public_key).toBe(res.body.identity.document.body.public_key);
    expect(res.body.identity.document.body.actor_type).toBe("gateway");

    for (const scopes of [["read"], ["receipts:read"], ["tools:write"]]) {
      const key = await managementKey(api, o, scopes);
      expect((await key("GET", "/gateway/identity")).body).toEqual(res.body);
    }
  });

  it("refuses callers that are neither signed in nor a management key, and unknown query members", async () => {
    const anonymous = api.browser();
    const res = await anonymous.get("/gateway/identity");
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("UNAUTHENTICATED");
    const strict = await o.owner.get("/gateway/identity?kid=x");
    expect(strict.status).toBe(400);
    expect(strict.body.error.code).toBe("VALIDATION_FAILED");
  });
});
