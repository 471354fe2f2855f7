import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";

/**
 * Graceful shutdown (SPEC 7.3): on `drain()` the server stops taking
 * new work (each new request gets the server's own refusal, e.g. the Gateway's
 * 503 GATEWAY_SHUTTING_DOWN with Retry-After: 5), lets requests already in
 * flight finish for at most the grace period, then closes. `/healthz` keeps
 * answering so the orchestrator does not kill a pod that is only draining;
 * `/readyz` turns 503 so it is taken out of rotation.
 */
export interface Lifecycle {
  readonly draining: boolean;
  readonly inFlight: number;
  /** Resolves when the server is closed. Safe to call more than once. */
  drain(graceMs: number): Promise<void>;
}

export interface LifecycleOptions {
  refuseWhileDraining: (request: FastifyRequest, reply: FastifyReply) => FastifyReply;
}

declare module "fastify" {
  interface FastifyInstance {
    lifecycle: Lifecycle;
  }
}

export const probePaths = new Set(["/healthz", "/readyz"]);

async function lifecyclePlugin(app: FastifyInstance, opts: LifecycleOptions) {
  let draining = false;
  let inFlight = 0;
  let closing: Promise<void> | undefined;
  let onIdle: (() => void) | undefined;

  app.addHook("onRequest", async (request, reply) => {
    if (probePaths.has(request.url.split("?")[0] ?? "")) return;
    if (draining) return opts.refuseWhileDraining(request, reply);
    inFlight++;
    // 'close' fires for finished and for aborted responses alike.
    reply.raw.once("close", () => {
      inFlight--;
      if (inFlight === 0) onIdle?.();
    });
  });

  app.decorate("lifecycle", {
    get draining() {
      return draining;
    },
    get inFlight() {
      return inFlight;
    },
    drain(graceMs: number): Promise<void> {
      closing ??= (async () => {
        draining = true;
        app.log.info({ inFlight, graceMs }, "draining: refusing new requests");
        const idle = new Promise<boolean>((resolve) => {
          if (inFlight === 0) return resolve(true);
          onIdle = () => resolve(true);
        });
        let timer: NodeJS.Timeout | undefined;
        const expired = new Promise<boolean>(
          (resolve) => (timer = setTimeout(() => resolve(false), graceMs)),
        );
        const finished = await Promise.race([idle, expired]);
        clearTimeout(timer);
        if (!finished)
          app.log.warn({ inFlight }, "grace period over: closing connections of unfinished requests");
        // Also when every request finished: a keep-alive connection Node still counts as busy
        // (seen after an MCP client gave up on a held tools/call and sent its cancellation)
        // would otherwise keep app.close() waiting for the client, and the pod for SIGKILL.
        app.server.closeAllConnections();
        await app.close();
      })();
      return closing;
    },
  } satisfies Lifecycle);
}

export const lifecycle = fp(lifecyclePlugin, { name: "countersign-lifecycle", fastify: "5.x" });
