/**
 * The curl snippet of "Connect an agent" (dashboard/src/routes/agents/connect/snippets.ts) run by
 * /bin/sh against a real HTTP server on 127.0.0.1: whatever a tool's name or arguments hold (quotes,
 * `$`, backticks, newlines), the shell sends exactly the request body the page meant, to the
 * address shown, with the key as bearer token. And the example arguments reach the amount rules.
 */
import { execFile } from "node:child_process";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectSnippets,
  exampleArguments,
  KEY_PLACEHOLDER,
} from "../../dashboard/src/routes/agents/connect/snippets.js";

let base: string;
const received: { url?: string; headers: IncomingHttpHeaders; body: string }[] = [];
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (c: Buffer) => (body += c.toString("utf8")));
  req.on("end", () => {
    received.push({ url: req.url, headers: req.headers, body });
    res.writeHead(200, { "content-type": "application/json" }).end('{"allowed":false}');
  });
});
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/edge`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const sh = (script: string) =>
  new Promise<{ code: number; stdout: string }>((resolve) =>
    execFile("/bin/sh", ["-c", script], { timeout: 20_000 }, (error, stdout) =>
      resolve({ code: error ? 1 : 0, stdout }),
    ),
  );

describe("the curl snippet", () => {
  it("sends the body, address and key the page shows, whatever the text holds", async () => {
    const args = { note: 'it\'s "quoted" $HOME `id` \\ end\nsecond line', amount: 10 };
    const key = "svc_live_abcdefghijkl_0123456789abcdefghijABCDEFGHIJ-_0123456789a";
    const { curl } = connectSnippets({ gatewayUrl: base, key, tool: "o'neil's_tool", arguments: args });
    const ran = await sh(curl);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe('{"allowed":false}');
    const last = received.at(-1)!;
    expect(last.url).toBe("/edge/v1/authorize");
    expect(last.headers.authorization).toBe(`Bearer ${key}`);
    expect(last.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(last.body)).toEqual({ tool: "o'neil's_tool", arguments: args });
  });

  it("puts placeholders where the page knows no address, key or tool", () => {
    const s = connectSnippets({ gatewayUrl: null, key: null, tool: null, arguments: {} });
    expect(s.curl).toContain("'<GATEWAY_URL>/v1/authorize'");
    expect(s.curl).toContain(`Bearer ${KEY_PLACEHOLDER}`);
    expect(s.curl).toContain('"tool":"<decision-only tool>"');
    expect(JSON.parse(s.mcpJson)).toEqual({
      mcpServers: {
        countersign: {
          type: "http",
          url: "<GATEWAY_URL>/mcp",
          headers: { Authorization: "Bearer <GATEWAY_KEY>" },
        },
      },
    });
  });
});

describe("the example's arguments", () => {
  it("fill the schema's required members by type and the amount mapping's paths", () => {
    expect(
      exampleArguments({
        input_schema: {
          type: "object",
          properties: {
            order: { type: "string", examples: ["A-1"] },
            count: { type: "integer" },
            urgent: { type: "boolean" },
            reason: { enum: ["damaged", "late"] },
            memo: { type: "string" },
          },
          required: ["order", "count", "urgent", "reason"],
        },
        amount_mapping: { amount_path: "$.payment.amount", currency_path: "payment.currency" },
      }),
    ).toEqual({
      order: "A-1",
      count: 1,
      urgent: false,
      reason: "damaged",
      payment: { amount: 10, currency: "EUR" },
    });
    // No schema and no mapping: an empty object, which /v1/authorize accepts.
    expect(exampleArguments({ input_schema: {}, amount_mapping: null })).toEqual({});
  });
});
