/**
 * `countersign principal create|register|replace|show` as a real process against a real Cloud API
 * on real PostgreSQL: an owner makes the principal's key file (PKCS#8 PEM, the format the operator
 * reads from the Organization's Secret and the dashboard's backup), registers it, and replaces it,
 * with the old key when at hand and without it when lost; every refusal (no key file flag, a
 * management key, an admin, a PEM path that exists, a wrong old key) changes nothing.
 */
import { createPrivateKey } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeSigner } from "../../protocol/src/evidence/index.js";
import { DASHBOARD, startCloudApi, type Browser, type CloudApi } from "../fixtures/cloud-api.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { runCountersign, type CliRun as Run } from "../fixtures/cli.js";

let db: TestDatabase;
let api: CloudApi;
let owner: Browser;
let org: string;
let dir: string;
const people: Record<"owner" | "admin", { email: string; password: string }> = {} as never;

/** The CLI as a user runs the binary, with a config folder per person. */
const countersign = (who: "owner" | "admin", env: Record<string, string>, ...args: string[]): Promise<Run> =>
  runCountersign(args, {
    PATH: process.env.PATH,
    HOME: dir,
    COUNTERSIGN_CONFIG_DIR: join(dir, who),
    COUNTERSIGN_PASSWORD: people[who].password,
    COUNTERSIGN_DASHBOARD_ORIGIN: DASHBOARD,
    ...env,
  });
const asOwner = (...args: string[]) => countersign("owner", {}, ...args);
/** `principal register --key-file FILE --org ORG ...` as one person (the owner unless said). */
const register = (
  o: { keyFile: string; who?: "owner" | "admin"; env?: Record<string, string> },
  ...more: string[]
) =>
  countersign(
    o.who ?? "owner",
    o.env ?? {},
    "principal",
    "register",
    "--key-file",
    o.keyFile,
    "--org",
    org,
    ...more,
  );
const noPrincipal = async () => expect((await owner.get(`/orgs/${org}/principal`)).body.principal).toBeNull();

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startCloudApi(db);
  dir = mkdtempSync(join(tmpdir(), "countersign-cli-principal-"));
  owner = api.browser();
  people.owner = await owner.signUpAndIn(api.smtp);
  const created = await owner.post("/orgs", { name: "Principal from the CLI" });
  expect(created.status).toBe(201);
  org = created.body.organization.id;
  const admin = api.browser();
  people.admin = await admin.signUpAndIn(api.smtp);
  expect(
    (await owner.post(`/orgs/${org}/invitations`, { email: people.admin.email, role: "admin" })).status,
  ).toBe(201);
  expect(
    (
      await admin.post("/invitations/accept", {
        token: api.smtp.lastToken(people.admin.email, "invitations/accept"),
      })
    ).status,
  ).toBe(200);
  for (const who of ["owner", "admin"] as const) {
    const signedIn = await countersign(who, {}, "signin", "--url", api.base, "--email", people[who].email);
    expect(signedIn.code, signedIn.stderr).toBe(0);
  }
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("countersign principal", () => {
  let kid: string;
  const keyFile = () => join(dir, "keys", "principal.pem");

  it("create writes a new key file (0600) and never overwrites one", async () => {
    const created = await asOwner("principal", "create", "--key-file", keyFile(), "--json");
    expect(created.code, created.stderr).toBe(0);
    const out = JSON.parse(created.stdout);
    kid = out.kid;
    expect(kid).toMatch(/^kid_/);
    expect(statSync(keyFile()).mode & 0o777).toBe(0o600);
    const before = readFileSync(keyFile(), "utf8");
    // One format: the PKCS#8 PEM node:crypto (and so the operator) reads as the same key.
    expect(before).toMatch(/^-----BEGIN PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+-----END PRIVATE KEY-----\n$/);
    expect(nodeSigner(createPrivateKey(before)).kid).toBe(kid);
    expect(created.stdout + created.stderr).not.toContain(before.split("\n")[1]);

    const again = await asOwner("principal", "create", "--key-file", keyFile());
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("never overwritten");
    expect(readFileSync(keyFile(), "utf8")).toBe(before);
    const noPath = await asOwner("principal", "create");
    expect(noPath.code).toBe(2);
    expect(noPath.stderr).toContain("--key-file FILE is required");
  });

  it("register is refused, changing nothing, without a person, for an admin, and when the PEM path exists", async () => {
    const withKey = await register({
      keyFile: keyFile(),
      env: { COUNTERSIGN_MANAGEMENT_KEY: "csk_live_x_not-sent", COUNTERSIGN_URL: api.base },
    });
    expect(withKey.code).toBe(3);
    expect(withKey.stderr).toContain("signed-in owner");
    await noPrincipal();

    const admin = await register({ keyFile: keyFile(), who: "admin" }, "--json");
    expect(admin.code).toBe(1);
    expect(JSON.parse(admin.stdout).answer.error.code).toBe("FORBIDDEN");
    await noPrincipal();

    const taken = join(dir, "taken.pem");
    writeFileSync(taken, "something else\n");
    const exists = await register({ keyFile: keyFile() }, "--pem-out", taken);
    expect(exists.code).toBe(2);
    expect(exists.stderr).toContain("never overwritten");
    expect(readFileSync(taken, "utf8")).toBe("something else\n");
    await noPrincipal();

    const notAKey = await register({ keyFile: taken });
    expect(notAKey.code).toBe(2);
    await noPrincipal();
  });

  it("register sets the principal and writes the same key as PKCS#8 PEM for the Organization's Secret", async () => {
    const pem = join(dir, "principal.pem");
    const registered = await register({ keyFile: keyFile() }, "--name", "Acme", "--pem-out", pem, "--json");
    expect(registered.code, registered.stderr).toBe(0);
    expect(JSON.parse(registered.stdout).principal).toMatchObject({ kid, status: "active", valid: true });
    const got = (await owner.get(`/orgs/${org}/principal`)).body.principal;
    expect(got).toMatchObject({ kid, valid: true });
    expect(got.documents[0].body.subject).toEqual({ organization_id: org, id: org, name: "Acme" });

    // What the operator does with its Secret's value: the same key, the same KID.
    expect(statSync(pem).mode & 0o777).toBe(0o600);
    const text = readFileSync(pem, "utf8");
    expect(text).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(nodeSigner(createPrivateKey(text)).kid).toBe(kid);
    expect(registered.stdout + registered.stderr).not.toContain(text.split("\n")[1]);

    const shown = await asOwner("principal", "show", "--org", org);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`${kid}  active`);
    // The same key again (a rerun script): nothing is signed or sent, so the principal is not
    // made to equivocate with a second first document.
    const again = await register({ keyFile: keyFile() }, "--name", "Other");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("is already the principal");
    const after = (await owner.get(`/orgs/${org}/principal`)).body;
    expect(after.principal).toMatchObject({ kid, status: "active", valid: true });
    expect(after.principal.documents).toEqual(got.documents);
  });

  it("register with another key is refused while the principal stands, which stays as it was", async () => {
    const other = join(dir, "keys", "other.pem");
    expect((await asOwner("principal", "create", "--key-file", other)).code).toBe(0);
    const refused = await register({ keyFile: other }, "--json");
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).answer.error).toMatchObject({
      code: "CONFLICT",
      details: { reason: "PRINCIPAL_EXISTS", current_kid: kid },
    });
    const said = await register({ keyFile: other });
    expect(said.stderr).toContain(`to put `);
    expect(said.stderr).toContain(`in its place run: countersign principal replace --key-file ${other}`);
    expect((await owner.get(`/orgs/${org}/principal`)).body.principal).toMatchObject({ kid, valid: true });
  });

  const replace = (...more: string[]) => asOwner("principal", "replace", "--org", org, ...more);

  it("replace refuses, changing nothing, the current key, a wrong old key, an admin and a management key", async () => {
    const before = (await owner.get(`/orgs/${org}/principal`)).body;
    const next = join(dir, "keys", "next.pem");
    expect((await asOwner("principal", "create", "--key-file", next)).code).toBe(0);

    const same = await replace("--key-file", keyFile());
    expect(same.code).toBe(2);
    expect(same.stderr).toContain(`is already the principal of organization ${org}; create a new key`);
    const wrongOld = await replace("--key-file", next, "--old-key-file", join(dir, "keys", "other.pem"));
    expect(wrongOld.code).toBe(2);
    expect(wrongOld.stderr).toContain(`not the current principal ${kid}`);
    const admin = await countersign(
      "admin",
      {},
      "principal",
      "replace",
      "--org",
      org,
      "--key-file",
      next,
      "--json",
    );
    expect(admin.code).toBe(1);
    expect(JSON.parse(admin.stdout).answer.error.code).toBe("FORBIDDEN");
    const withKey = await countersign(
      "owner",
      { COUNTERSIGN_MANAGEMENT_KEY: "csk_live_x_not-sent", COUNTERSIGN_URL: api.base },
      "principal",
      "replace",
      "--org",
      org,
      "--key-file",
      next,
    );
    expect(withKey.code).toBe(3);
    expect(withKey.stderr).toContain("signed-in owner");
    expect((await owner.get(`/orgs/${org}/principal`)).body).toEqual(before);
  });

  it("replace with the old key: the old log ends `replaced` by the new KID; without it (a lost key) too", async () => {
    const next = join(dir, "keys", "next.pem");
    const nextKid = nodeSigner(createPrivateKey(readFileSync(next, "utf8"))).kid;
    const replaced = await replace("--key-file", next, "--old-key-file", keyFile(), "--json");
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(JSON.parse(replaced.stdout)).toMatchObject({
      outcome: "replaced",
      principal: { kid: nextKid, status: "active", valid: true },
    });
    const state = (await owner.get(`/orgs/${org}/principal`)).body;
    expect(state.principal.kid).toBe(nextKid);
    expect(state.principal.documents[0].body.replaces).toBe(kid);
    const old = state.history.find((i: { kid: string }) => i.kid === kid);
    expect(old.status).toBe("replaced");
    expect(old.documents.at(-1).body).toMatchObject({ status: "replaced", replaced_by: nextKid });

    // The next key replaces it with the current key lost: no --old-key-file.
    const third = join(dir, "keys", "third.pem");
    expect((await asOwner("principal", "create", "--key-file", third)).code).toBe(0);
    const lost = await replace("--key-file", third);
    expect(lost.code, lost.stderr).toBe(0);
    expect(lost.stdout).toContain(`now replaces ${nextKid}`);
    expect(lost.stdout).toContain(`Delegations signed by ${nextKid} no longer authorize`);
    const after = (await owner.get(`/orgs/${org}/principal`)).body;
    expect(after.principal.documents[0].body.replaces).toBe(nextKid);
    const second = after.history.find((i: { kid: string }) => i.kid === nextKid);
    expect(second.status).toBe("replaced");
    expect(second.documents).toHaveLength(1);
  });
});
