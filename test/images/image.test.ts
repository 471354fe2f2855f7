/**
 * The image as images/Dockerfile makes it, without a container engine (test/images/build.ts):
 * its /app holds compiled JavaScript and production dependencies only, made read-only, in a
 * folder outside the repository so no module can be found in the repository's node_modules.
 * Its four programs run from there with only their own files: the migrations program on an
 * empty PostgreSQL, the api (reviewing the operator's token through a real kube-apiserver), a
 * gateway that decides, and the operator, which leads its Lease and reconciles an Organization.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { root } from "../chart/helm.js";
import { startControlPlane, type ControlPlane } from "../control-plane/index.js";
import { freePort } from "../control-plane/processes.js";
import { createAuthorizationWorld } from "../fixtures/authorization.js";
import { Browser, randomIp } from "../fixtures/cloud-api.js";
import { conditionOf, eventually, kubectlJson, kubectlOk } from "../fixtures/kube.js";
import {
  operatorAudience,
  operatorUsername,
  setUpOperatorIdentity,
  startOperatorProcess,
  type OperatorProcess,
} from "../fixtures/operator.js";
import { startNodeProcess, type NodeProcess } from "../fixtures/node-process.js";
import { startSmtpServer, type SmtpCapture } from "../fixtures/smtp.js";
import { authorizeAt, startGatewayProcess, type GatewayProcess } from "../multi-replica/gateway-process.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { buildWithoutEngine, type BuiltStage } from "./build.js";
import { readDockerfile } from "./dockerfile.js";

const DASHBOARD = "https://dashboard.image.test";
let work: string;
let runtime: BuiltStage;
/** The image's working directory (/app) on this machine. */
let app: string;
let db: TestDatabase;
let plane: ControlPlane;
let smtp: SmtpCapture;
const stops: Array<() => Promise<unknown>> = [];

/** A file tree's paths relative to `dir`, links not followed. */
function walk(dir: string, rel = ""): string[] {
  return readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const r = rel ? `${rel}/${e.name}` : e.name;
    return e.isDirectory() ? [r, ...walk(dir, r)] : [r];
  });
}

/** `node <ENTRYPOINT args> <program>` in /app with the image's ENV and the given one, nothing else. */
const runImage = (program: string, env: Record<string, string>): NodeProcess =>
  startNodeProcess([...runtime.entrypoint.slice(1), program], {
    cwd: app,
    env: { HOME: "/nonexistent", ...runtime.env, ...env },
  });

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), "countersign-image-"));
  const stages = await buildWithoutEngine({
    dockerfile: readDockerfile(path.join(root, "images/Dockerfile")),
    context: root,
    work,
    cache: path.join(root, ".cache/images"),
  });
  runtime = stages.at(-1)!;
  app = path.join(runtime.rootfs, runtime.workdir);
  // A read-only root filesystem, as the chart runs the image (only /tmp is written).
  execFileSync("chmod", ["-R", "a-w", runtime.rootfs]);
  [db, plane, smtp] = await Promise.all([
    createTestDatabase({ migrate: false }),
    startControlPlane(),
    startSmtpServer(),
  ]);
}, 1_800_000);

afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
  await smtp?.close();
  await db?.drop();
  await plane?.stop();
  if (work) {
    execFileSync("chmod", ["-R", "u+w", work]);
    rmSync(work, { recursive: true, force: true });
  }
});

describe("the image built from images/Dockerfile", () => {
  it("holds compiled JavaScript and production dependencies only, run by a numeric non-root user", () => {
    expect(runtime.user).toMatch(/^[1-9]\d*(:\d+)?$/);
    expect(runtime.entrypoint[0]).toBe("node");
    const files = walk(app);
    const modules = new Set(
      files
        .filter((f) => /(^|\/)node_modules\/(@[^/]+\/)?[^/@]+$/.test(f))
        .map((f) => f.replace(/^(.*\/)?node_modules\//, "")),
    );
    expect(modules.has("fastify")).toBe(true);
    expect(modules.has("@kubernetes/client-node")).toBe(true);
    // Every dev dependency of the repository and its workspaces, except type packages (@types/node
    // is a production dependency of protobufjs and @kubernetes/client-node).
    const workspaces = [
      "",
      "protocol/",
      "core/",
      "api/",
      "gateway/",
      "operator/",
      "local/",
      "test/",
      "clients/typescript/",
      "dashboard/",
    ].map((w) => JSON.parse(readFileSync(path.join(root, w, "package.json"), "utf8")));
    // A package some workspace needs in production (yaml: core, protocol, operator) belongs in the
    // image even when another workspace lists it among its dev dependencies (the dashboard bundles it).
    const production = new Set(workspaces.flatMap((p) => Object.keys(p.dependencies ?? {})));
    const devOnly = workspaces
      .flatMap((p) => Object.keys(p.devDependencies ?? {}))
      // The dashboard bundles the protocol workspace at build time; the image runs it as a workspace.
      .filter((name) => !name.startsWith("@types/") && !name.startsWith("@countersign/"))
      .filter((name) => !production.has(name));
    expect(devOnly).toEqual(expect.arrayContaining(["typescript", "vitest", "smtp-server", "react", "vite"]));
    for (const dev of devOnly) expect(modules.has(dev), dev).toBe(false);
    const ours = files.filter((f) => !f.includes("node_modules/"));
    expect(ours.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
    expect(ours.some((f) => /^(test|local)(\/|$)/.test(f))).toBe(false);
    // The operator calls the Cloud API through the one client (@countersign/client/cloud), so the
    // client workspace ships, as its compiled files and manifest only: no CLI sources, no Python client.
    const client = ours.filter((f) => /^clients(\/|$)/.test(f));
    expect(client).toContain("clients/typescript/dist/cloud/index.js");
    expect(
      client.filter(
        (f) => !/^clients(\/typescript(\/(package\.json|dist|dist\/.*|node_modules))?)?$/.test(f),
      ),
    ).toEqual([]);
    for (const program of [
      "api/dist/main.js",
      "api/dist/migrate-main.js",
      "gateway/dist/main.js",
      "operator/dist/main.js",
    ])
      expect(existsSync(path.join(app, program)), program).toBe(true);
    // Nothing the user could write: the programs cannot change their own code.
    expect(statSync(path.join(app, "api/dist/main.js")).mode & 0o222).toBe(0);
  });

  it("migrates an empty database with the migrations Job's program", async () => {
    const run = runImage("api/dist/migrate-main.js", { DATABASE_URL: db.url, COUNTERSIGN_LOG_LEVEL: "info" });
    expect(await run.exited, run.output()).toBe(0);
    const files = readdirSync(path.join(app, "core/migrations")).filter((f) => f.endsWith(".sql"));
    expect((await db.pool.query("select count(*)::int as n from schema_migrations")).rows[0].n).toBe(
      files.length,
    );
  }, 120_000);

  describe("its servers", () => {
    let apiBase: string;
    let gateway: GatewayProcess;
    let operator: OperatorProcess;
    const keyHashSecret = Buffer.alloc(32, 7);
    const signingKey = new Uint8Array(32).fill(9);

    it("the api starts, reviewing tokens through the apiserver, and the gateway decides", async () => {
      // The api's ServiceAccount, allowed to review tokens (the chart's tokenreview Secret).
      await kubectlOk(plane, ["create", "serviceaccount", "countersign-api", "-n", "default"]);
      await kubectlOk(plane, [
        "create",
        "clusterrolebinding",
        "countersign-api-reviewer",
        "--clusterrole=system:auth-delegator",
        "--serviceaccount=default:countersign-api",
      ]);
      const reviewerToken = (
        await kubectlOk(plane, ["create", "token", "countersign-api", "-n", "default"])
      ).trim();
      const caFile = path.join(work, "apiserver-ca.crt");
      writeFileSync(caFile, plane.caCert);
      const port = await freePort();
      const api = runImage("api/dist/main.js", {
        DATABASE_URL: db.url,
        COUNTERSIGN_HOST: "127.0.0.1",
        COUNTERSIGN_API_PORT: String(port),
        COUNTERSIGN_KEY_HASH_SECRET: keyHashSecret.toString("base64url"),
        COUNTERSIGN_CREDENTIAL_KEY: Buffer.alloc(32, 3).toString("base64url"),
        COUNTERSIGN_GATEWAY_SIGNING_KEY: Buffer.from(signingKey).toString("base64url"),
        COUNTERSIGN_DASHBOARD_ORIGIN: DASHBOARD,
        COUNTERSIGN_SMTP_URL: smtp.url,
        COUNTERSIGN_MAIL_OUTBOX_DIR: path.join(work, "outbox"),
        COUNTERSIGN_TOKENREVIEW_URL: plane.server,
        COUNTERSIGN_TOKENREVIEW_TOKEN: reviewerToken,
        COUNTERSIGN_TOKENREVIEW_AUDIENCE: operatorAudience,
        NODE_EXTRA_CA_CERTS: caFile,
      });
      stops.push(api.stop);
      apiBase = `http://127.0.0.1:${port}`;
      await eventually(
        `the api is ready (${api.output().slice(-500)})`,
        async () => (await fetch(`${apiBase}/readyz`)).status === 200,
        90_000,
      );
      // The dashboard the image carries, served by the api on its origin (an e-mail link's page too).
      const page = await fetch(`${apiBase}/verify-email`);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      const html = await page.text();
      expect(html).toContain('<div id="root">');
      const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
      expect((await fetch(`${apiBase}${script}`)).status).toBe(200);

      gateway = await startGatewayProcess({
        databaseUrl: db.url,
        keyHashSecret,
        signingKey,
        built: true,
        cwd: app,
        env: runtime.env,
      });
      stops.push(() => gateway.stop());
      const world = await createAuthorizationWorld(db.pool, keyHashSecret);
      const allowed = await authorizeAt(gateway.url, world.key, {
        tool: world.tool,
        arguments: { order: "image-1", amount: 50 },
        idempotency_key: "image-1",
      });
      expect(allowed.body, JSON.stringify(allowed.body)).toMatchObject({
        allowed: true,
        status: "authorized",
      });
      const denied = await authorizeAt(gateway.url, world.key, {
        tool: world.tool,
        arguments: { order: "image-2", amount: 50000 },
        idempotency_key: "image-2",
      });
      expect(denied.body).toMatchObject({ allowed: false, status: "denied", code: "POLICY_DENIED" });
    }, 180_000);

    it("the operator leads its Lease and reconciles an Organization into the api, signed in as its ServiceAccount", async () => {
      const identity = await setUpOperatorIdentity(plane);
      operator = startOperatorProcess({
        identity: "image-operator-0",
        kubeconfig: identity.kubeconfig,
        apiUrl: apiBase,
        tokenFile: identity.tokenFile,
        image: { app },
      });
      stops.push(() => operator.stop());
      // An operator that cannot start (a module the image lacks) fails here with its output.
      const died = new Promise<never>((_, reject) =>
        operator.child.once("exit", (code) =>
          reject(new Error(`the operator exited ${code}: ${operator.output().slice(-2000)}`)),
        ),
      );
      died.catch(() => undefined); // its stop at the end is no failure
      const healthPort = await Promise.race([operator.healthPort, died]);
      expect((await fetch(`http://127.0.0.1:${healthPort}/healthz`)).status).toBe(200);
      await eventually(
        "the operator leads",
        async () =>
          (await kubectlJson(plane, ["get", "lease", "countersign-operator", "-n", "countersign-system"]))
            .spec.holderIdentity === "image-operator-0",
      );

      const owner = new Browser(apiBase, randomIp(), DASHBOARD);
      await owner.signUpAndIn(smtp);
      const orgId = (await owner.post("/orgs", { name: "Made for the image" })).body.organization.id;
      expect(
        (await owner.post(`/orgs/${orgId}/operator-bindings`, { username: operatorUsername, role: "admin" }))
          .status,
      ).toBe(201);
      const sample = parse(readFileSync(path.join(root, "config/samples/organization.yaml"), "utf8"));
      sample.spec.organizationId = orgId;
      delete sample.spec.principalKeySecretRef;
      await kubectlOk(plane, ["create", "namespace", sample.metadata.namespace]);
      await kubectlOk(plane, ["apply", "-f", "-"], stringify(sample));
      await eventually(
        "the Organization is Ready",
        async () =>
          conditionOf(
            await kubectlJson(plane, [
              "get",
              "organization.countersign.dev",
              sample.metadata.name,
              "-n",
              sample.metadata.namespace,
            ]),
            "Ready",
          )?.status === "True",
        90_000,
      );
      expect((await owner.get(`/orgs/${orgId}`)).body.organization.name).toBe(sample.spec.settings.name);
      expect(operator.output()).not.toMatch(/ERR_MODULE_NOT_FOUND|Cannot find (module|package)/);
      expect(operator.output()).not.toContain(identity.token);
    }, 180_000);
  });
});
