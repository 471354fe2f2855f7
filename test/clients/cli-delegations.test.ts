/**
 * `countersign delegations grant|list|revoke` as a real process against a real Cloud API and
 * Gateway on real PostgreSQL: an agent refused NO_DELEGATION is authorized once an admin grants it a
 * delegation signed with the principal's key file (PKCS#8 PEM, the dashboard's backup format; the
 * JSON files of earlier CLI versions still read), and refused again once it is revoked. Refused
 * grants (a management key, a key that is not the principal's, bad permissions or expiry) store
 * nothing. When an owner replaces the principal (`principal replace`), delegations signed by the
 * old key stop authorizing and the new key's grant does.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  generateSeed,
  nodeSigner,
  privateKeyFromSeed,
  toBase64url,
} from "../../protocol/src/evidence/index.js";
import { delegationAnswerSchema, delegationSchema, pageSchema } from "../../protocol/src/wire/index.js";
import { insertApiKey } from "../../core/src/keys/index.js";
import { authorizeAction } from "../../clients/typescript/src/index.js";
import { DASHBOARD, startCloudApi, type CloudApi } from "../fixtures/cloud-api.js";
import {
  createActivePolicy,
  createAuthorizationWorld,
  createGatewayKey,
  refundPolicy,
  type AuthorizationWorld,
} from "../fixtures/authorization.js";
import { createAgent } from "../fixtures/organization.js";
import { startTestGateway, type TestGateway } from "../gateway/harness.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { runCountersign, type CliRun as Run } from "../fixtures/cli.js";

const PASSWORD = "correct horse battery staple";
let db: TestDatabase;
let api: CloudApi;
let gw: TestGateway;
let world: AuthorizationWorld;
let dir: string;
let agent: { id: string; name: string; key: string };
let principalKeyFile: string;
const principalSeed = generateSeed();

/** The CLI as a user runs it, signed in as the organization's admin. */
const cli = (...args: string[]): Promise<Run> =>
  runCountersign(args, {
    PATH: process.env.PATH,
    HOME: dir,
    COUNTERSIGN_CONFIG_DIR: join(dir, "admin"),
    COUNTERSIGN_PASSWORD: PASSWORD,
    COUNTERSIGN_DASHBOARD_ORIGIN: DASHBOARD,
  });
const okJson = (run: Run) => {
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
};

/** A principal key file in the one format (PKCS#8 PEM, as node:crypto and the dashboard write it). */
const keyFile = (name: string, seed: Uint8Array) => {
  const path = join(dir, name);
  writeFileSync(path, privateKeyFromSeed(seed).export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
  return path;
};
/** The JSON key file earlier CLI versions wrote. */
const legacyKeyFile = (name: string, seed: Uint8Array) => {
  const path = join(dir, name);
  writeFileSync(
    path,
    JSON.stringify({ kind: "countersign-ed25519-key", kid: nodeSigner(seed).kid, seed: toBase64url(seed) }),
    { mode: 0o600 },
  );
  return path;
};

let n = 0;
const ask = () =>
  authorizeAction({
    gatewayUrl: gw.gateway.url,
    apiKey: agent.key,
    tool: world.tool,
    arguments: { order: `o-${++n}`, amount: 40 },
    idempotencyKey: `cli-delegation-${n}-${Date.now()}`,
  });

const delegationsOf = async (agentId: string) =>
  (
    await db.pool.query<{ id: string; revoked: boolean }>(
      "select id, revoked_at is not null as revoked from delegations where agent_id = $1 order by created_at",
      [agentId],
    )
  ).rows;

beforeAll(async () => {
  db = await createTestDatabase();
  const signingKey = generateSeed();
  api = await startCloudApi(db, { extra: { evidence: { gatewaySigningKey: signingKey } } });
  gw = await startTestGateway(db, {
    keyHashSecret: api.keyHashSecret,
    signingKey,
    defaultPlan: "enterprise",
  });
  world = await createAuthorizationWorld(db.pool, api.keyHashSecret, {
    principal: nodeSigner(principalSeed),
  });
  // A second agent of the organization with a policy and a key, but no delegation.
  const name = `cli-agent-${Date.now()}`;
  const id = await createAgent(db.pool, world.organizationId, { name });
  await createActivePolicy(db.pool, world.organizationId, refundPolicy, { agentId: id });
  agent = {
    id,
    name,
    key: (await createGatewayKey(db.pool, api.keyHashSecret, world.organizationId, id, world.ownerId)).key,
  };

  const email = `delegations-${Date.now()}@example.test`;
  const browser = api.browser();
  expect((await browser.post("/auth/signup", { email, password: PASSWORD })).status).toBe(202);
  expect(
    (await browser.post("/auth/email/verify", { token: api.smtp.lastToken(email, "verify-email") })).status,
  ).toBe(200);
  await db.pool.query(
    "insert into memberships (organization_id, user_id, role) select $1, id, 'admin' from users where email = $2",
    [world.organizationId, email],
  );
  dir = mkdtempSync(join(tmpdir(), "countersign-cli-delegations-"));
  principalKeyFile = keyFile("principal.pem", principalSeed);
  const signedIn = await cli("signin", "--url", api.base, "--email", email);
  expect(signedIn.code, signedIn.stderr).toBe(0);
});
afterAll(async () => {
  await gw?.close();
  await api?.close();
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("countersign delegations", { timeout: 120_000 }, () => {
  let granted: string;

  it("grant: the agent refused NO_DELEGATION is authorized after an admin grants it, by agent name", async () => {
    expect(await ask()).toMatchObject({ allowed: false, status: "denied", code: "NO_DELEGATION" });
    const answer = okJson(
      await cli(
        "delegations",
        "grant",
        "--agent",
        agent.name,
        "--permissions",
        "payments.*",
        "--expires-in",
        "1h",
        "--principal-key-file",
        principalKeyFile,
        "--org",
        world.organizationId,
        "--json",
      ),
    );
    // The Cloud API answers exactly the wire schema the protocol package declares for it.
    expect(delegationAnswerSchema.parse(answer)).toEqual(answer);
    expect(answer.delegation).toMatchObject({
      agent_id: agent.id,
      permissions: ["payments.*"],
      state: "active",
    });
    expect(answer.delegation.object.body.actor).toBe(world.principal.kid);
    const expiresIn = Date.parse(answer.delegation.expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(55 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(3_600_000);
    granted = answer.delegation.id;
    expect(await ask()).toMatchObject({ allowed: true, status: "authorized" });
  });

  it("list: the agent's delegations, as JSON and as lines", async () => {
    const listed = okJson(
      await cli("delegations", "list", "--agent", agent.id, "--org", world.organizationId, "--json"),
    );
    expect(pageSchema(delegationSchema).parse(listed)).toEqual(listed);
    expect(listed.items.map((d: { id: string; state: string }) => [d.id, d.state])).toEqual([
      [granted, "active"],
    ]);
    const human = await cli("delegations", "list", "--agent", agent.name, "--org", world.organizationId);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`^${granted}  active .*payments\\.\\*$`, "m"));
  });

  it("revoke: signed with the principal key file; the agent is refused NO_DELEGATION again", async () => {
    const answer = okJson(
      await cli(
        "delegations",
        "revoke",
        granted,
        "--agent",
        agent.id,
        "--principal-key-file",
        principalKeyFile,
        "--org",
        world.organizationId,
        "--json",
      ),
    );
    expect(delegationAnswerSchema.parse(answer)).toEqual(answer);
    expect(answer.delegation).toMatchObject({ id: granted, state: "revoked" });
    expect(answer.delegation.revocation.body.payload.delegation).toBe(answer.delegation.object_id);
    expect(await ask()).toMatchObject({ allowed: false, status: "denied", code: "NO_DELEGATION" });
    const again = await cli(
      "delegations",
      "revoke",
      granted,
      "--agent",
      agent.id,
      "--principal-key-file",
      principalKeyFile,
      "--org",
      world.organizationId,
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("INVALID_STATE");
  });

  it("refused grants store nothing: another key, a management key, bad permissions or expiry, unknown agent", async () => {
    const before = await delegationsOf(agent.id);
    const grant = (...more: string[]) =>
      cli("delegations", "grant", "--agent", agent.id, "--org", world.organizationId, ...more);
    const base = ["--permissions", "payments.*", "--expires-in", "1h"];

    const stranger = await grant(...base, "--principal-key-file", keyFile("stranger.json", generateSeed()));
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toContain("VERIFICATION_FAILED");

    const management = await insertApiKey(db.pool, api.keyHashSecret, {
      organizationId: world.organizationId,
      kind: "management",
      environment: "live",
      name: "cli",
      scopes: ["approvals:read"],
      createdBy: world.ownerId,
    });
    const withKey = await runCountersign(
      [
        "delegations",
        "grant",
        "--agent",
        agent.id,
        "--org",
        world.organizationId,
        ...base,
        "--principal-key-file",
        principalKeyFile,
      ],
      {
        PATH: process.env.PATH,
        HOME: dir,
        COUNTERSIGN_MANAGEMENT_KEY: management.key,
        COUNTERSIGN_URL: api.base,
      },
    );
    expect(withKey.code).toBe(3);
    expect(withKey.stderr).toContain("signed-in owner or admin");
    expect(withKey.stderr + withKey.stdout).not.toContain(management.key);

    const badPermission = await grant(
      "--permissions",
      "pay ments",
      "--expires-in",
      "1h",
      "--principal-key-file",
      principalKeyFile,
    );
    expect(badPermission.code).toBe(2);
    expect(badPermission.stderr).toContain("--permissions");
    for (const expiry of [
      [],
      ["--expires-in", "soon"],
      ["--expires-at", "2001-01-01T00:00:00Z"],
      ["--expires-in", "1h", "--expires-at", "2999-01-01T00:00:00Z"],
    ]) {
      const r = await grant(
        "--permissions",
        "payments.*",
        ...expiry,
        "--principal-key-file",
        principalKeyFile,
      );
      expect(r.code, expiry.join(" ")).toBe(2);
      expect(r.stderr).toMatch(/expir/);
    }
    const unknown = await cli(
      "delegations",
      "grant",
      "--agent",
      "no-such-agent",
      "--org",
      world.organizationId,
      ...base,
      "--principal-key-file",
      principalKeyFile,
      "--json",
    );
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout)).toMatchObject({
      exit_code: 1,
      error: expect.stringContaining("no agent named no-such-agent"),
    });

    expect(await delegationsOf(agent.id)).toEqual(before);
    expect(await ask()).toMatchObject({ allowed: false, code: "NO_DELEGATION" });
  });

  it("reads the JSON key file of earlier versions, and refuses a file that is no key with what to give instead", async () => {
    const grant = (file: string) =>
      cli(
        "delegations",
        "grant",
        "--agent",
        agent.id,
        "--org",
        world.organizationId,
        "--permissions",
        "payments.refund",
        "--expires-in",
        "1h",
        "--principal-key-file",
        file,
        "--json",
      );
    const legacy = okJson(await grant(legacyKeyFile("principal.json", principalSeed)));
    expect(legacy.delegation.object.body.actor).toBe(world.principal.kid);
    expect(await ask()).toMatchObject({ allowed: true, status: "authorized" });
    const revoked = await cli(
      "delegations",
      "revoke",
      legacy.delegation.id,
      "--agent",
      agent.id,
      "--principal-key-file",
      principalKeyFile,
      "--org",
      world.organizationId,
    );
    expect(revoked.code, revoked.stderr).toBe(0);

    const before = await delegationsOf(agent.id);
    const notKey = join(dir, "notes.pem");
    writeFileSync(notKey, "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n", {
      mode: 0o600,
    });
    const refused = await grant(notKey);
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout).error).toBe(
      `${notKey} is not an Ed25519 private key in PKCS#8 PEM (the dashboard's key backup, or a file \`countersign principal create\` or \`identity create\` wrote)`,
    );
    const open = keyFile("open.pem", principalSeed);
    chmodSync(open, 0o644);
    const readable = await grant(open);
    expect(readable.code).toBe(2);
    expect(JSON.parse(readable.stdout).error).toBe(
      `${open} is readable by others; run chmod 600 ${open} and try again`,
    );
    expect(await delegationsOf(agent.id)).toEqual(before);
  });

  it("after `principal replace`, the old key's delegations no longer authorize; the new key's grant does", async () => {
    const granted = okJson(
      await cli(
        "delegations",
        "grant",
        "--agent",
        agent.id,
        "--org",
        world.organizationId,
        "--permissions",
        "payments.*",
        "--expires-in",
        "1h",
        "--principal-key-file",
        principalKeyFile,
        "--json",
      ),
    );
    expect(await ask()).toMatchObject({ allowed: true, status: "authorized" });
    // Replacing the principal is an owner's step (SPEC 2.1).
    await db.pool.query(
      "update memberships set role = 'owner' where organization_id = $1 and role = 'admin'",
      [world.organizationId],
    );
    const newKey = join(dir, "keys", "principal-2.pem");
    const created = okJson(await cli("principal", "create", "--key-file", newKey, "--json"));
    const replaced = await cli(
      "principal",
      "replace",
      "--key-file",
      newKey,
      "--old-key-file",
      principalKeyFile,
      "--org",
      world.organizationId,
    );
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stdout).toContain(`${created.kid} now replaces ${world.principal.kid}`);
    expect(replaced.stdout).toContain("no longer authorize");

    // The old principal's delegation is still listed, but the Gateway accepts only the current principal's.
    expect(await ask()).toMatchObject({ allowed: false, status: "denied", code: "NO_DELEGATION" });
    const listed = okJson(
      await cli("delegations", "list", "--agent", agent.id, "--org", world.organizationId, "--json"),
    );
    expect(listed.items.map((d: { id: string }) => d.id)).toContain(granted.delegation.id);
    const human = await cli("delegations", "list", "--agent", agent.id, "--org", world.organizationId);
    expect(human.stdout).toMatch(
      new RegExp(
        `^${granted.delegation.id}  active .*\\(signed by ${world.principal.kid}, not the current principal: no longer authorizes\\)$`,
        "m",
      ),
    );

    // A grant signed with the replaced key is refused and stores nothing; the new key's is accepted.
    const before = await delegationsOf(agent.id);
    const stale = await cli(
      "delegations",
      "grant",
      "--agent",
      agent.id,
      "--org",
      world.organizationId,
      "--permissions",
      "payments.*",
      "--expires-in",
      "1h",
      "--principal-key-file",
      principalKeyFile,
    );
    expect(stale.code).toBe(1);
    expect(await delegationsOf(agent.id)).toEqual(before);
    const regranted = okJson(
      await cli(
        "delegations",
        "grant",
        "--agent",
        agent.id,
        "--org",
        world.organizationId,
        "--permissions",
        "payments.*",
        "--expires-in",
        "1h",
        "--principal-key-file",
        newKey,
        "--json",
      ),
    );
    expect(regranted.delegation.object.body.actor).toBe(created.kid);
    expect(await ask()).toMatchObject({ allowed: true, status: "authorized" });
    const after = await cli("delegations", "list", "--agent", agent.id, "--org", world.organizationId);
    expect(after.stdout).toMatch(new RegExp(`^${regranted.delegation.id}  active .*payments\\.\\*$`, "m"));
  });

  it("help names every subcommand and the exit statuses", async () => {
    const help = await cli("delegations", "--help");
    expect(help.code).toBe(0);
    for (const word of [
      "delegations grant",
      "delegations list",
      "delegations revoke",
      "--principal-key-file",
      "Exit status",
    ])
      expect(help.stdout).toContain(word);
    const unknown = await cli("delegations", "extend");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command: delegations extend");
  });
});
