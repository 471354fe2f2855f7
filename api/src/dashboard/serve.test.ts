/**
 * The dashboard's files on the api's origin: pages of the application (the e-mail link paths)
 * get index.html with the security headers, built assets are cached for good, and nothing else
 * changes: API paths keep their JSON 404, a missing asset is a 404, a path that climbs out of the
 * build folder reads nothing, and unsafe methods are never answered with a page.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@countersign/core/server";
import { createPool } from "@countersign/core/store";
import { ConfigError, loadConfig } from "@countersign/core/config";
import { apiSettings } from "../config.js";
import { buildApiServer } from "../server.js";

let app: FastifyInstance;
let root: string;
const pool = createPool("postgres://nobody@127.0.0.1:1/none", { applicationName: "dashboard-files-test" });
const index = '<!doctype html><div id="root"></div>';

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "dashboard-files-"));
  mkdirSync(join(root, "dist/assets"), { recursive: true });
  writeFileSync(join(root, "dist/index.html"), index);
  writeFileSync(join(root, "dist/assets/app-1a2b.js"), "console.log(1)");
  writeFileSync(join(root, "secret.txt"), "outside the build");
  // Nothing here queries the database; the pool is never connected.
  app = buildApiServer({ pool, logger: createLogger("api", "silent"), dashboardDir: join(root, "dist") });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await pool.end();
  rmSync(root, { recursive: true, force: true });
});

describe("dashboard files", () => {
  it("serves index.html for the application's pages, with the security headers", async () => {
    for (const url of ["/", "/verify-email", "/invitations/accept", "/orgs/8d3a/approvals"]) {
      const res = await app.inject({ method: "GET", url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toBe(index);
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
      expect(res.headers["cache-control"]).toBe("no-store");
      expect(res.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
      expect(res.headers["content-security-policy"]).toContain("script-src 'self'");
    }
  });

  it("gives each page load its own style nonce, in the policy and in the page", async () => {
    const page = '<!doctype html><meta name="csp-nonce" content="__CSP_NONCE__" /><div id="root"></div>';
    writeFileSync(join(root, "dist/index.html"), page);
    try {
      const nonces = [];
      for (let i = 0; i < 2; i++) {
        const res = await app.inject({ method: "GET", url: "/orgs/8d3a" });
        const nonce = /content="([A-Za-z0-9_-]{24})"/.exec(res.body)?.[1];
        expect(nonce).toBeDefined();
        expect(res.headers["content-security-policy"]).toContain(`style-src 'self' 'nonce-${nonce}';`);
        expect(res.headers["content-security-policy"]).toContain("script-src 'self';");
        nonces.push(nonce);
      }
      expect(nonces[0]).not.toBe(nonces[1]);
    } finally {
      writeFileSync(join(root, "dist/index.html"), index);
    }
  });

  it("writes no Gateway address into the page when the installation gave none", async () => {
    const page = '<meta name="countersign-gateway-url" content="__GATEWAY_URL__" /><div id="root"></div>';
    writeFileSync(join(root, "dist/index.html"), page);
    try {
      const res = await app.inject({ method: "GET", url: "/orgs/8d3a/agents/1" });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('<meta name="countersign-gateway-url" content="" /><div id="root"></div>');
    } finally {
      writeFileSync(join(root, "dist/index.html"), index);
    }
  });

  it("writes COUNTERSIGN_GATEWAY_URL into the page's meta, escaped as attribute text", async () => {
    const page = '<meta name="countersign-gateway-url" content="__GATEWAY_URL__" /><div id="root"></div>';
    writeFileSync(join(root, "dist/index.html"), page);
    const { gatewayUrl } = loadConfig(
      { gatewayUrl: apiSettings.gatewayUrl },
      { COUNTERSIGN_GATEWAY_URL: "https://gateway.example/edge/?a=1&b=\"<x>'//" },
    );
    // Trailing slashes go: the page appends /v1/authorize and /mcp to it.
    expect(gatewayUrl).toBe("https://gateway.example/edge/?a=1&b=\"<x>'");
    const withUrl = buildApiServer({
      pool,
      logger: createLogger("api", "silent"),
      dashboardDir: join(root, "dist"),
      gatewayUrl,
    });
    try {
      const res = await withUrl.inject({ method: "GET", url: "/" });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe(
        '<meta name="countersign-gateway-url" content="https://gateway.example/edge/?a=1&amp;b=&quot;&lt;x&gt;&#39;" /><div id="root"></div>',
      );
    } finally {
      await withUrl.close();
      writeFileSync(join(root, "dist/index.html"), index);
    }
  });

  it("refuses a Gateway address that is not an http(s) URL, naming the setting and never starting", () => {
    for (const value of ["gateway.example", "ftp://gateway.example", "javascript:alert(1)"]) {
      expect(() =>
        loadConfig({ gatewayUrl: apiSettings.gatewayUrl }, { COUNTERSIGN_GATEWAY_URL: value }),
      ).toThrow(ConfigError);
      expect(() =>
        loadConfig({ gatewayUrl: apiSettings.gatewayUrl }, { COUNTERSIGN_GATEWAY_URL: value }),
      ).toThrow(/COUNTERSIGN_GATEWAY_URL/);
    }
    expect(loadConfig({ gatewayUrl: apiSettings.gatewayUrl }, {}).gatewayUrl).toBeUndefined();
  });

  it("caches built assets for good and types them", async () => {
    const res = await app.inject({ method: "GET", url: "/assets/app-1a2b.js" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/javascript/);
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
  });

  it("keeps API 404s, missing assets and paths out of the folder as errors", async () => {
    const api = await app.inject({ method: "GET", url: "/api/v1/no-such-route" });
    expect(api.statusCode).toBe(404);
    expect(api.json()).toMatchObject({ error: { code: "NOT_FOUND" } });
    const asset = await app.inject({ method: "GET", url: "/assets/gone-9z.js" });
    expect(asset.statusCode).toBe(404);
    expect(asset.json()).toMatchObject({ error: { code: "NOT_FOUND" } });
    for (const url of ["/%2e%2e/secret.txt", "/..%2fsecret.txt", "/assets/%2e%2e/%2e%2e/secret.txt"]) {
      const res = await app.inject({ method: "GET", url });
      expect(res.body, url).not.toContain("outside the build");
    }
    const post = await app.inject({ method: "POST", url: "/verify-email", payload: {} });
    expect(post.statusCode).toBe(404);
    expect(post.json()).toMatchObject({ error: { code: "NOT_FOUND" } });
  });
});
