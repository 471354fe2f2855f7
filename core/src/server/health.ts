import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";

export interface HealthOptions {
  /** Undefined when ready, else a short reason (never a secret). */
  readiness: () => Promise<string | undefined>;
}

/**
 * `/healthz`: the process is alive (liveness). `/readyz`: it can do its work now,
 * i.e. not draining and its dependencies answer (readiness).
 */
async function healthPlugin(app: FastifyInstance, opts: HealthOptions) {
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    const reason = app.lifecycle.draining
      ? "shutting down"
      : await opts.readiness().catch(() => "readiness check failed");
    if (reason) return reply.code(503).header("retry-after", "5").send({ status: "not_ready", reason });
    return { status: "ready" };
  });
}

export const health = fp(healthPlugin, {
  name: "countersign-health",
  dependencies: ["countersign-lifecycle"],
});
