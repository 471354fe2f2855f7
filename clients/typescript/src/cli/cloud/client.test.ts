/**
 * The CLI's exit statuses for Cloud API answers a real Cloud API never gives (a success of the
 * wrong shape, a proxy's HTML 502) and for the spec's error body, as a user runs the binary. A tiny
 * local HTTP server stands in for a broken or mismatched deployment; the flows against a real
 * Cloud API are in test/clients/cli-*.test.ts.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCountersign } from "../../../../../test/fixtures/cli.js";

const ORG = "00000000-0000-4000-8000-000000000002";
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url?.endsWith("/receipts/wrong-shape")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ receipt: { id: 7, secret_value: "never-printed" } }));
    } else if (req.url?.endsWith("/receipts/missing")) {
      res.writeHead(404, { "content-type": "application/json", "x-request-id": "stub-404" });
      res.end(JSON.stringify({ error: { code: "NOT_FOUND", message: "receipt not found" } }));
    } else {
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<html>Bad Gateway</html>");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

/** `receipts get` with a management key; the id tells the stand-in what to answer. */
const receiptsGet = (id: string, ...extra: string[]) =>
  runCountersign(["receipts", "get", id, "--org", ORG, ...extra], {
    PATH: process.env.PATH,
    COUNTERSIGN_URL: url,
    COUNTERSIGN_MANAGEMENT_KEY: "csk_test_not_a_real_key",
  });

describe("the CLI on answers it cannot use", { timeout: 120_000 }, () => {
  it("exits 4 for an answer its wire schema refuses or a proxy's 502, and 1 with the code for a refusal", async () => {
    const [wrong, proxy, missing] = await Promise.all([
      receiptsGet("wrong-shape"),
      receiptsGet("proxy"),
      receiptsGet("missing", "--json"),
    ]);
    expect(wrong.code, wrong.stderr).toBe(4);
    expect(wrong.stderr).toContain("not what this CLI expects");
    expect(wrong.stderr).toContain("receipt.id");
    expect(wrong.stdout + wrong.stderr).not.toContain("never-printed");

    expect(proxy.code, proxy.stderr).toBe(4);
    expect(proxy.stderr).toContain("the Cloud API failed (HTTP 502)");

    expect(missing.code, missing.stderr).toBe(1);
    const out = JSON.parse(missing.stdout) as { error: string; exit_code: number; answer: unknown };
    expect(out).toMatchObject({
      error: "refused: NOT_FOUND: receipt not found",
      exit_code: 1,
      answer: { error: { code: "NOT_FOUND", message: "receipt not found" } },
    });
  });
});
