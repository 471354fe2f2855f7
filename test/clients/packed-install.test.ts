/**
 * `@countersign/protocol` and `@countersign/client` as a user gets them: `npm pack` of both, installed
 * into an empty project (and globally) by npm running on Node.js 22 (scripts/install-node.sh), then
 * `authorizeAction` and `countersign verify` run from that project against a real Gateway on real
 * PostgreSQL. The installed tree must carry none of the server's dependencies.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuthorizationWorld, type AuthorizationWorld } from "../fixtures/authorization.js";
import { startTestGateway, type TestGateway } from "../gateway/harness.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], o: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd: o.cwd, env: o.env ?? process.env, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

async function ok(
  file: string,
  args: string[],
  o: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<string> {
  const r = await run(file, args, o);
  expect(r.code, `${file} ${args.join(" ")}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

/** Every package name installed under a node_modules folder, nested ones included. */
function installedPackages(nodeModules: string): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string) => {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.startsWith(".")) continue;
      if (entry.startsWith("@")) {
        for (const scoped of readdirSync(join(dir, entry))) {
          names.add(`${entry}/${scoped}`);
          walk(join(dir, entry, scoped, "node_modules"));
        }
      } else {
        names.add(entry);
        walk(join(dir, entry, "node_modules"));
      }
    }
  };
  walk(nodeModules);
  return names;
}

const serverOnly = ["fastify", "pg", "@opentelemetry/sdk-node", "@countersign/core", "pino", "prom-client"];

let dir: string;
let project: string;
let env: NodeJS.ProcessEnv;
let node22: string;
let db: TestDatabase;
let gw: TestGateway;
let world: AuthorizationWorld;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "countersign-packed-"));
  const nodeBin = (await ok(join(repo, "scripts/install-node.sh"), [], { cwd: repo })).trim();
  node22 = join(nodeBin, "node");
  env = { ...process.env, PATH: `${nodeBin}:${process.env.PATH}`, npm_config_update_notifier: "false" };
  // The compiled packages, as `make build` leaves them, then one tarball each.
  await ok(
    process.execPath,
    [join(repo, "node_modules/typescript/bin/tsc"), "-b", "protocol", "clients/typescript"],
    { cwd: repo },
  );
  const tarballs = join(dir, "tarballs");
  mkdirSync(tarballs);
  for (const workspace of ["protocol", "clients/typescript"])
    await ok("npm", ["pack", "--silent", "--pack-destination", tarballs], {
      cwd: join(repo, workspace),
      env,
    });
  const packed = readdirSync(tarballs).map((f) => join(tarballs, f));
  expect(packed.map((f) => f.replace(/.*\//, "")).sort()).toEqual([
    "countersign-client-0.1.0-pre.0.tgz",
    "countersign-protocol-0.1.0-pre.0.tgz",
  ]);
  project = join(dir, "project");
  mkdirSync(project);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "empty", private: true, type: "module" }),
  );
  await ok("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...packed], {
    cwd: project,
    env,
  });
  await ok(
    "npm",
    [
      "install",
      "--global",
      "--prefix",
      join(dir, "global"),
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      ...packed,
    ],
    {
      cwd: dir,
      env,
    },
  );

  db = await createTestDatabase();
  gw = await startTestGateway(db);
  world = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
}, 600_000);

afterAll(async () => {
  await gw?.close();
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe(
  "the packed protocol and client installed into an empty project on Node 22",
  { timeout: 120_000 },
  () => {
    it("carry no server dependency", () => {
      const installed = installedPackages(join(project, "node_modules"));
      expect(installed).toContain("@countersign/client");
      expect(installed).toContain("@countersign/protocol");
      expect(installed).toContain("@modelcontextprotocol/sdk");
      for (const name of serverOnly) expect(installed.has(name), name).toBe(false);
      const client = JSON.parse(
        readFileSync(join(project, "node_modules/@countersign/client/package.json"), "utf8"),
      );
      expect(Object.keys(client.dependencies).sort()).toEqual([
        "@countersign/protocol",
        "@modelcontextprotocol/sdk",
        // The Cloud API client (`@countersign/client/cloud`) validates answers with the wire's zod
        // schemas and names zod's types in its surface, so zod is a direct dependency, not a server one.
        "zod",
      ]);
      expect(client.engines).toEqual({ node: ">=22" });
    });

    it("authorizeAction gets a decision from a real Gateway, and countersign verify checks its receipt offline", async () => {
      writeFileSync(
        join(project, "authorize.mjs"),
        `import { authorizeAction } from "@countersign/client";
const [gatewayUrl, apiKey, tool] = process.argv.slice(2);
const result = await authorizeAction({ gatewayUrl, apiKey, tool, arguments: { order: "o-1", amount: 40 }, idempotencyKey: "packed-1" });
console.log(JSON.stringify({ node: process.version, result }));
`,
      );
      const out = JSON.parse(
        await ok(node22, ["authorize.mjs", gw.gateway.url, world.key, world.tool], { cwd: project, env }),
      );
      expect(out.node).toMatch(/^v22\./);
      expect(out.result).toMatchObject({ allowed: true, status: "authorized" });
      const { rows } = await db.pool.query("select bundle from receipts where id = $1", [
        out.result.receiptId,
      ]);
      expect(rows).toHaveLength(1);
      const bundle = join(project, "receipt.svcbundle");
      writeFileSync(bundle, rows[0].bundle);

      const issuer = gw.gateway.identity.signer.kid;
      const verified = await run(
        "npx",
        ["--no-install", "countersign", "verify", "receipt.svcbundle", "--json", "--trust-issuer", issuer],
        {
          cwd: project,
          env,
        },
      );
      expect(verified.code, verified.stderr).toBe(0);
      expect(JSON.parse(verified.stdout).verification).toMatchObject({ valid: true, errors: [] });

      // The same bundle with one byte of the signed evidence changed is refused, exit status 1.
      const tampered = JSON.parse(rows[0].bundle.toString("utf8"));
      tampered.objects[0].body.issued_at = "2000-01-01T00:00:00.000Z";
      writeFileSync(join(project, "tampered.svcbundle"), JSON.stringify(tampered));
      const refused = await run("npx", ["--no-install", "countersign", "verify", "tampered.svcbundle"], {
        cwd: project,
        env,
      });
      expect(refused.code, refused.stdout + refused.stderr).toBe(1);
      expect(refused.stdout).toMatch(/^INVALID/);
    });

    it("npm i -g of the tarballs puts countersign on the PATH", async () => {
      const globalBin = join(dir, "global/bin");
      const help = await run("countersign", ["--help"], {
        cwd: dir,
        env: { ...env, PATH: `${globalBin}:${env.PATH}` },
      });
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toMatch(/^Usage: countersign COMMAND/);
      for (const name of serverOnly)
        expect(installedPackages(join(dir, "global/lib/node_modules")).has(name), name).toBe(false);
    });
  },
);
