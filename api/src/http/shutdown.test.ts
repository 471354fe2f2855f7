import { describe, expect, it } from "vitest";
import { createLogger } from "@countersign/core/server";
import { createPool } from "@countersign/core/store";
import { buildApiServer } from "../server.js";

describe("Cloud API graceful shutdown", () => {
  it("answers new requests 503 SERVICE_UNAVAILABLE with Retry-After: 5 while draining", async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const slowStarted = new Promise<void>((r) => (started = r));
    const pool = createPool("postgres://postgres@127.0.0.1:1/none", { applicationName: "unused" });
    const app = buildApiServer({
      pool,
      logger: createLogger("api", "silent"),
      routes: async (api) => {
        api.get("/slow", async () => {
          started();
          await released;
          return { done: true };
        });
      },
    });
    await app.ready();
    const inFlight = app.inject({ method: "GET", url: "/api/v1/slow" });
    await slowStarted;
    const draining = app.lifecycle.drain(10_000);
    const refused = await app.inject({ method: "GET", url: "/api/v1/slow" });
    expect(refused.statusCode).toBe(503);
    expect(refused.headers["retry-after"]).toBe("5");
    expect(refused.json()).toEqual({
      error: { code: "SERVICE_UNAVAILABLE", message: "the server is shutting down; retry" },
    });
    release();
    expect((await inFlight).json()).toEqual({ done: true });
    await draining;
    await pool.end();
  });
});
