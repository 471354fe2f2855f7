import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestCa } from "../../../test/fixtures/https-receiver.js";
import { UPSTREAM_IDLE_MS, upstreamAgent } from "./agents.js";
import { ByteBudget, upstreamFetch } from "./fetch.js";

const ca = createTestCa();
/** The options an agent was made with (node:https declares them; node:http keeps them too). */
const optionsOf = (agent: object) => (agent as { options: Record<string, unknown> }).options;
afterAll(() => ca.dispose());

describe("upstreamAgent", () => {
  it("keeps connections alive, and closes idle ones before the common servers' 5 s", () => {
    for (const agent of [
      upstreamAgent(true, undefined),
      upstreamAgent(false, undefined),
      upstreamAgent(false, [ca.caPem]),
    ]) {
      expect(optionsOf(agent)).toMatchObject({ keepAlive: true, timeout: UPSTREAM_IDLE_MS });
    }
    expect(UPSTREAM_IDLE_MS).toBeLessThan(5_000);
  });

  it("uses one agent for the public roots, and builds the trust once per configured list, never shared between two lists", () => {
    expect(upstreamAgent(false, undefined)).toBe(upstreamAgent(false, []));
    const configured = [ca.caPem];
    const agent = upstreamAgent(false, configured);
    expect(agent).not.toBe(upstreamAgent(false, undefined));
    expect(upstreamAgent(false, configured)).toBe(agent);
    expect(optionsOf(agent).secureContext).toBeDefined();
    // Another list with the same certificate (another configuration) gets its own connections.
    expect(upstreamAgent(false, [ca.caPem])).not.toBe(agent);
  });
});

describe("an upstream's idle connection", () => {
  // A server that keeps idle connections a minute, and notes which connection each request came on.
  let server: Server;
  let url: string;
  const requests: Socket[] = [];
  const closed = new Set<Socket>();
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(req.socket);
      req.resume();
      req.on("end", () => res.end('{"ok":true}'));
    });
    server.keepAliveTimeout = 60_000;
    server.on("connection", (socket: Socket) => socket.once("close", () => closed.add(socket)));
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const call = async () => {
    const fetch = upstreamFetch({
      rules: { allowLoopback: true },
      budget: new ByteBudget(1024),
      signal: new AbortController().signal,
      failure: {},
    });
    const res = await fetch(url, {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    expect(await res.json()).toEqual({ ok: true });
  };

  it("is reused while fresh, then closed by the Gateway itself, and the next call opens a new one", async () => {
    await call();
    await call();
    expect(requests).toHaveLength(2);
    expect(requests[1]).toBe(requests[0]);
    const first = requests[0]!;
    // The server would keep it a minute: the Gateway's agent closes it once it has been idle.
    for (let waited = 0; !closed.has(first) && waited < 30_000; waited += 100)
      await new Promise((r) => setTimeout(r, 100));
    expect(closed.has(first)).toBe(true);
    await call();
    expect(requests).toHaveLength(3);
    expect(requests[2]).not.toBe(first);
  });
});
