/**
 * An approver works from the `countersign` CLI alone,
 * run as a real process against a real Cloud API and Gateway on real
 * PostgreSQL. Sign in, create and bind a personal identity, see the pending
 * approval an agent's call created, approve it, and the agent's waiting
 * `authorizeAction` returns authorized. Then the other commands: reject,
 * receipts, cancel with a principal key file, management keys, help, exit
 * statuses.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSeed, nodeSigner, toBase64url } from "../../protocol/src/evidence/index.js";
import { insertApiKey } from "../../core/src/keys/index.js";
import { authorizeAction } from "../../clients/typescript/src/index.js";
import { DASHBOARD, startCloudApi, type CloudApi } from "../fixtures/cloud-api.js";
import { createAuthorizationWorld, type AuthorizationWorld } from "../fixtures/authorization.js";
import { recorded, startTestGateway, type TestGateway } from "../gateway/harness.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { runCountersign, type CliRun as Run } from "../fixtures/cli.js";

const PASSWORD = "correct horse battery staple";
let db: TestDatabase;
let api: CloudApi;
let gw: TestGateway;
let world: AuthorizationWorld;
let dir: string;
let email: string;
const principalSeed = generateSeed();

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
  // The approver signs up through the Cloud API and is made an admin of the organization.
  email = `approver-${Date.now()}@example.test`;
  const browser = api.browser();
  expect((await browser.post("/auth/signup", { email, password: PASSWORD })).status).toBe(202);
  expect(
    (await browser.post("/auth/email/verify", { token: api.smtp.lastToken(email, "verify-email") })).status,
  ).toBe(200);
  await db.pool.query(
    "insert into memberships (organization_id, user_id, role) select $1, id, 'admin' from users where email = $2",
    [world.organizationId, email],
  );
  dir = mkdtempSync(join(tmpdir(), "countersign-cli-"));
});
afterAll(async () => {
  await gw?.close();
  await api?.close();
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The CLI as a user runs the binary, with only the given environment (HOME the test folder). */
const countersign = (env: Record<string, string>, ...args: string[]): Promise<Run> =>
  runCountersign(args, { PATH: process.env.PATH, HOME: dir, ...env });

const approverEnv = () => ({
  COUNTERSIGN_CONFIG_DIR: join(dir, "approver"),
  COUNTERSIGN_PASSWORD: PASSWORD,
  COUNTERSIGN_DASHBOARD_ORIGIN: DASHBOARD,
});
const cli = (...args: string[]) => countersign(approverEnv(), ...args);
const okJson = (run: Run) => {
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
};

let n = 0;
const agentCall = (amount: number) => ({
  gatewayUrl: gw.gateway.url,
  apiKey: world.key,
  tool: world.tool,
  arguments: { order: `o-${++n}`, amount },
  idempotencyKey: `cli-${n}-${Date.now()}`,
});

describe("the approver walk-through, from the CLI alone", () => {
  let kid: string;

  it("signs in, creates and binds an identity, sees the agent's pending approval, approves it, and the agent's waiting authorizeAction returns authorized", async () => {
    const signedIn = await cli("signin", "--url", api.base, "--email", email);
    expect(signedIn.code, signedIn.stderr).toBe(0);
    const sessionFile = join(dir, "approver", "session.json");
    expect(statSync(sessionFile).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(sessionFile, "utf8"));
    // The session token is kept in the file, never printed.
    expect(signedIn.stdout + signedIn.stderr).not.toContain(stored.session_token);

    const created = okJson(await cli("identity", "create", "--json"));
    kid = created.kid;
    expect(kid).toMatch(/^kid_/);
    expect(statSync(created.key_file).mode & 0o777).toBe(0o600);
    expect(readFileSync(created.key_file, "utf8")).not.toContain(stored.session_token);
    const bound = okJson(await cli("identity", "bind", "--json"));
    expect(bound.identity.kid).toBe(kid);

    // The agent asks; the call is held for approval, and the agent waits.
    const call = agentCall(500);
    const pending = await authorizeAction(call);
    expect(pending).toMatchObject({ allowed: false, status: "approval_pending" });
    const waiting = authorizeAction({ ...call, waitSeconds: 60 });

    const list = okJson(
      await cli("approvals", "list", "--org", world.organizationId, "--status", "pending", "--json"),
    );
    const item = list.items.find((a: { id: string }) => a.id === pending.approvalRequestId);
    expect(item).toMatchObject({ status: "pending", protected_action_id: pending.protectedActionId });
    expect(item.approver_kids).toContain(kid);
    const human = await cli("approvals", "list", "--org", world.organizationId);
    expect(human.stdout).toContain(pending.approvalRequestId!);
    const shown = await cli("approvals", "show", pending.approvalRequestId!, "--org", world.organizationId);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(pending.protectedActionId!);

    const approved = await cli(
      "approvals",
      "approve",
      pending.approvalRequestId!,
      "--org",
      world.organizationId,
    );
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toMatch(/Approved .* \(status approved\)/);

    const r = await waiting;
    expect(r).toMatchObject({
      allowed: true,
      status: "authorized",
      protectedActionId: pending.protectedActionId,
      approvalRequestId: pending.approvalRequestId,
    });
    const { rows } = await db.pool.query(
      "select status, decided_by_kid from approval_requests where id = $1",
      [pending.approvalRequestId],
    );
    expect(rows[0]).toEqual({ status: "approved", decided_by_kid: kid });

    // The receipt over the APPROVAL, read and downloaded, then verified offline by the same CLI.
    const receipt = okJson(
      await cli("receipts", "get", r.receiptId!, "--org", world.organizationId, "--json"),
    ).receipt;
    expect(receipt).toMatchObject({ id: r.receiptId, outcome: "granted" });
    const out = join(dir, "granted.svcbundle");
    expect(
      (await cli("receipts", "download", r.receiptId!, "--org", world.organizationId, "--out", out)).code,
    ).toBe(0);
    const verified = await cli("verify", out);
    expect(verified.code, verified.stdout).toBe(0);
    expect(verified.stdout).toMatch(/^VALID/);
    // A second download never overwrites the file.
    expect(
      (await cli("receipts", "download", r.receiptId!, "--org", world.organizationId, "--out", out)).code,
    ).toBe(2);
  }, 120_000);

  it("rejects: the agent's next ask is rejected with a closure receipt", async () => {
    const call = agentCall(501);
    const pending = await authorizeAction(call);
    const rejected = await cli(
      "approvals",
      "reject",
      pending.approvalRequestId!,
      "--org",
      world.organizationId,
      "--reason",
      "not this one",
      "--json",
    );
    expect(okJson(rejected).approval.status).toBe("rejected");
    expect(await authorizeAction(call)).toMatchObject({
      allowed: false,
      status: "rejected",
      code: "REJECTED",
    });
    // Deciding again is refused by the Cloud API (exit 1) and changes nothing.
    const before = await recorded(db.pool, world.organizationId);
    const again = await cli(
      "approvals",
      "approve",
      pending.approvalRequestId!,
      "--org",
      world.organizationId,
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("ALREADY_DECIDED");
    expect(await recorded(db.pool, world.organizationId)).toEqual(before);
  }, 60_000);

  it("actions cancel signs a CANCELLATION with the principal key file; the agent's next ask is cancelled", async () => {
    const keyFile = join(dir, "principal.json");
    writeFileSync(
      keyFile,
      JSON.stringify({
        kind: "countersign-ed25519-key",
        kid: world.principal.kid,
        seed: toBase64url(principalSeed),
      }),
      { mode: 0o600 },
    );
    const call = agentCall(502);
    const pending = await authorizeAction(call);
    const cancelled = okJson(
      await cli(
        "actions",
        "cancel",
        pending.protectedActionId!,
        "--org",
        world.organizationId,
        "--principal-key-file",
        keyFile,
        "--json",
      ),
    );
    expect(cancelled.action.status).toBe("cancelled");
    expect(cancelled.receipt.outcome).toBe("final");
    expect(await authorizeAction(call)).toMatchObject({
      allowed: false,
      status: "cancelled",
      code: "CANCELLED",
    });
  }, 60_000);
});

describe("credentials, files and exit statuses", () => {
  it("without a session or key: exit 3, nothing sent", async () => {
    const run = await countersign(
      { COUNTERSIGN_CONFIG_DIR: join(dir, "nobody") },
      "approvals",
      "list",
      "--org",
      world.organizationId,
    );
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("not signed in");
  });

  it("a wrong password: exit 3, no session stored", async () => {
    const env = {
      COUNTERSIGN_CONFIG_DIR: join(dir, "wrong"),
      COUNTERSIGN_PASSWORD: "not the password at all",
    };
    const run = await countersign(env, "signin", "--url", api.base, "--email", email);
    expect(run.code).toBe(3);
    expect(() => statSync(join(dir, "wrong", "session.json"))).toThrow();
  });

  it("a management key from the environment reads approvals; it can never decide one (exit 3, nothing decided)", async () => {
    const key = await insertApiKey(db.pool, api.keyHashSecret, {
      organizationId: world.organizationId,
      kind: "management",
      environment: "live",
      name: "cli",
      scopes: ["approvals:read"],
      createdBy: world.ownerId,
    });
    const env = {
      COUNTERSIGN_CONFIG_DIR: join(dir, "keyed"),
      COUNTERSIGN_MANAGEMENT_KEY: key.key,
      COUNTERSIGN_URL: api.base,
    };
    const pending = await authorizeAction(agentCall(503));
    const list = JSON.parse(
      (await countersign(env, "approvals", "list", "--org", world.organizationId, "--json")).stdout,
    );
    expect(list.items.map((a: { id: string }) => a.id)).toContain(pending.approvalRequestId);
    const keyFile = join(dir, "approver", "personal-key.json");
    const decide = await countersign(
      { ...env, COUNTERSIGN_KEY_FILE: keyFile },
      "approvals",
      "approve",
      pending.approvalRequestId!,
      "--org",
      world.organizationId,
    );
    expect(decide.code).toBe(3);
    const { rows } = await db.pool.query("select status from approval_requests where id = $1", [
      pending.approvalRequestId,
    ]);
    expect(rows[0].status).toBe("pending");
    expect(decide.stdout + decide.stderr).not.toContain(key.key);
  });

  it("identity create never overwrites a key file, and a key file others can read is refused (exit 2)", async () => {
    const file = join(dir, "approver", "personal-key.json");
    const before = readFileSync(file, "utf8");
    expect((await cli("identity", "create")).code).toBe(2);
    expect(readFileSync(file, "utf8")).toBe(before);
    const open = join(dir, "open-key.json");
    writeFileSync(open, before);
    chmodSync(open, 0o644);
    const run = await cli("identity", "bind", "--key-file", open);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("readable by others");
  });

  it("help for every command (exit 0), and usage errors exit 2", async () => {
    const topics = [
      ["--help"],
      ["help"],
      ["verify", "--help"],
      ["signin", "--help"],
      ["signout", "--help"],
      ["identity", "--help"],
      ["identity", "create", "--help"],
      ["approvals", "--help"],
      ["approvals", "approve", "--help"],
      ["receipts", "--help"],
      ["actions", "cancel", "--help"],
    ];
    const runs = await Promise.all(topics.map((t) => cli(...t)));
    runs.forEach((run, i) => {
      expect(run.code, topics[i]!.join(" ")).toBe(0);
      expect(run.stdout).toMatch(/Usage: countersign/);
      expect(run.stdout).toContain("Exit status");
    });
    const [unknown, badFlag] = await Promise.all([
      cli("approvals", "frobnicate"),
      cli("approvals", "list", "--colour", "red"),
    ]);
    expect(unknown.code).toBe(2);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain("unknown option: --colour");
  }, 60_000);
});
