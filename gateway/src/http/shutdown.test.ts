/**
 * Graceful shutdown of a Gateway (SPEC 7.3): while draining, new calls
 * get 503 GATEWAY_SHUTTING_DOWN with Retry-After: 5 in the caller's protocol,
 * in-flight calls finish, /readyz turns 503, and the grace period bounds it all.
 * Real HTTP on loopback; a test route stands in for a slow call.
 */
import http from "node:http";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@countersign/core/server";
import { createTestDatabase, type TestDatabase } from "../../../test/setup/database.js";
import { buildGatewayServer } from "../server.js";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase({ migrate: false });
});
afterAll(async () => db?.drop());

interface Started {
  app: FastifyInstance;
  port: number;
  release: () => void;
  slowStarted: Promise<void>;
}

async function start(): Promise<Started> {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let started!: () => void;
  const slowStarted = new Promise<void>((r) => (started = r));
  const app = buildGatewayServer({
    pool: db.pool,
    logger: createLogger("gateway", "silent"),
    routes: async (a) => {
      a.post("/v1/authorize", async () => {
        started();
        await released;
        return { allowed: true, finished: true };
      });
    },
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const addr = app.server.address();
  return { app, port: typeof addr === "object" && addr ? addr.port : 0, release, slowStarted };
}

/** A request on its own keep-alive agent so it survives the listener closing. */
function request(port: number, path: string, agent: http.Agent, method = "POST") {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      const req = http.request(
        { host: "127.0.0.1", port, path, method, agent, headers: { "content-type": "application/json" } },
        (res) => {
          let body = "";
          res.on("data", (d) => (body += d));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        },
      );
      req.on("error", reject);
      req.end(method === "POST" ? "{}" : undefined);
    },
  );
}

describe("Gateway graceful shutdown", () => {
  it("refuses new calls with 503 GATEWAY_SHUTTING_DOWN while in-flight calls finish, then closes", async () => {
    const s = await start();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
    // Open a second idle connection before draining: it is how a client reaches a draining replica.
    await Promise.all([request(s.port, "/healthz", agent, "GET"), request(s.port, "/readyz", agent, "GET")]);

    const inFlight = request(s.port, "/v1/authorize", agent);
    await s.slowStarted;
    const draining = s.app.lifecycle.drain(10_000);
    expect(s.app.lifecycle.draining).toBe(true);

    const refused = await s.app.inject({ method: "POST", url: "/v1/authorize", payload: {} });
    expect(refused.statusCode).toBe(503);
    expect(refused.headers["retry-after"]).toBe("5");
    expect(refused.json()).toMatchObject({
      allowed: false,
      status: "unavailable",
      code: "GATEWAY_SHUTTING_DOWN",
      retryable: true,
    });

    const mcp = await s.app.inject({
      method: "POST",
      url: "/mcp",
      payload: { jsonrpc: "2.0", id: 1, method: "ping" },
    });
    expect(mcp.statusCode).toBe(503);
    expect(mcp.headers["retry-after"]).toBe("5");
    expect(mcp.json()).toMatchObject({
      jsonrpc: "2.0",
      error: { data: { service: { code: "GATEWAY_SHUTTING_DOWN" } } },
    });

    expect((await s.app.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(503);
    expect((await s.app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);

    s.release();
    const done = await inFlight;
    expect(done.status).toBe(200);
    expect(JSON.parse(done.body)).toEqual({ allowed: true, finished: true });
    await draining;
    expect(s.app.server.listening).toBe(false);
    agent.destroy();
  });

  it("closes unfinished calls when the grace period ends", async () => {
    const s = await start();
    const agent = new http.Agent({ keepAlive: true });
    const inFlight = request(s.port, "/v1/authorize", agent).then(
      (r) => ({ ok: true as const, r }),
      (e: Error) => ({ ok: false as const, e }),
    );
    await s.slowStarted;
    await s.app.lifecycle.drain(200);
    expect(s.app.server.listening).toBe(false);
    const outcome = await inFlight;
    expect(outcome.ok).toBe(false);
    s.release();
    agent.destroy();
  });

  it("closes at once when nothing is in flight, and a second drain is the same stop", async () => {
    const s = await start();
    const first = s.app.lifecycle.drain(60_000);
    const second = s.app.lifecycle.drain(60_000);
    expect(second).toBe(first);
    await first;
    expect(s.app.server.listening).toBe(false);
    s.release();
  });
});
