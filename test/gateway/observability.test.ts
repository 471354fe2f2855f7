/**
 * What operators see of /v1/authorize: OpenTelemetry spans for the pipeline's
 * stages (recorded by a real SDK tracer provider with an in-memory exporter),
 * and 503 DATABASE_UNAVAILABLE with Retry-After: 5 when PostgreSQL is gone.
 */
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { DecisionService } from "../../core/src/decision/index.js";
import { generateSeed, nodeSigner } from "../../protocol/src/evidence/index.js";
import { createLogger } from "../../core/src/server/index.js";
import { createPool, freePort, NotificationHub } from "../../core/src/store/index.js";
import { createGatewayMetrics } from "../../gateway/src/metrics.js";
import { OrganizationQueue } from "../../gateway/src/limits/organization-queue.js";
import { buildGatewayServer } from "../../gateway/src/server.js";
import { gatewayRoutes } from "../../gateway/src/start.js";
import { createTestDatabase, type TestDatabase } from "../setup/database.js";
import { createAuthorizationWorld, type AuthorizationWorld } from "../fixtures/authorization.js";
import { startTestGateway, type TestGateway } from "./harness.js";

// What NodeSDK registers in a server (startTelemetry), with an in-memory exporter.
const exporter = new InMemorySpanExporter();
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(
  new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
);

let db: TestDatabase;
let gw: TestGateway;
let world: AuthorizationWorld;
beforeAll(async () => {
  db = await createTestDatabase();
  gw = await startTestGateway(db);
  world = await createAuthorizationWorld(db.pool, gw.keyHashSecret);
});
afterAll(async () => {
  await gw?.close();
  await db?.drop();
});

describe("traces", () => {
  it("one trace per call, with a span for each stage of the pipeline under the request's span", async () => {
    exporter.reset();
    const res = await gw.authorize(world.key, { tool: world.tool, arguments: { amount: 5 } });
    expect(res.body.status).toBe("authorized");
    const spans = exporter.getFinishedSpans();
    const root = spans.find((s) => s.name === "POST /v1/authorize")!;
    expect(root).toBeDefined();
    const stages = spans
      .filter((s) => s.spanContext().traceId === root.spanContext().traceId)
      .map((s) => s.name);
    for (const stage of [
      "gateway.admission",
      "gateway.queue",
      "decision.policy",
      "decision.evaluate",
      "decision.sign",
      "decision.record",
    ]) {
      expect(stages).toContain(stage);
    }
    const record = spans.find((s) => s.name === "decision.record")!;
    expect(record.attributes["countersign.status"]).toBe("authorized");
    // Spans never carry argument values or the key.
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain(world.key);
  });
});

describe("database unavailable", () => {
  it("503 DATABASE_UNAVAILABLE when the Gateway's database was dropped under it", async () => {
    const doomed = await createTestDatabase();
    const g = await startTestGateway(doomed);
    const w = await createAuthorizationWorld(doomed.pool, g.keyHashSecret);
    try {
      const admin = new pg.Client({ connectionString: inject("postgresUrl") });
      await admin.connect();
      await admin.query(`drop database ${new URL(doomed.url).pathname.slice(1)} with (force)`);
      await admin.end();
      const res = await g.authorize(w.key, { tool: w.tool, arguments: { amount: 5 } });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({
        status: "unavailable",
        code: "DATABASE_UNAVAILABLE",
        retryable: true,
      });
    } finally {
      await g.close();
      await doomed.pool.end().catch(() => undefined);
    }
  });

  it("503 unavailable / DATABASE_UNAVAILABLE with Retry-After: 5, retryable", async () => {
    const nowhere = `postgres://nobody@127.0.0.1:${await freePort()}/none`;
    const pool = createPool(nowhere, { applicationName: "test-down" });
    const identity = { signer: nodeSigner(generateSeed()), documents: [] };
    const hub = new NotificationHub(nowhere, "unused");
    const ctx = {
      pool,
      keyHashSecret: gw.keyHashSecret,
      metrics: createGatewayMetrics(),
      queue: new OrganizationQueue(),
      decisions: new DecisionService({ pool, identity, defaultPlan: "developer", instanceId: "down", hub }),
    };
    const app = buildGatewayServer({
      pool,
      logger: createLogger("gateway", "silent"),
      routes: gatewayRoutes(ctx),
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    try {
      const { port } = app.server.address() as { port: number };
      const res = await fetch(`http://127.0.0.1:${port}/v1/authorize`, {
        method: "POST",
        headers: { authorization: `Bearer ${world.key}`, "content-type": "application/json" },
        body: JSON.stringify({ tool: world.tool }),
      });
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("5");
      expect(await res.json()).toMatchObject({
        allowed: false,
        status: "unavailable",
        code: "DATABASE_UNAVAILABLE",
        retryable: true,
      });
    } finally {
      await app.close();
      await pool.end();
    }
  });
});
