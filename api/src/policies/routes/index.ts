import type { FastifyInstance } from "fastify";
import type { ApiContext } from "../../context.js";
import { analysisRoutes } from "./analysis.js";
import { evidenceRoute } from "./evidence.js";
import { policyRoutes } from "./policies.js";
import { rolloutRoutes } from "./rollout.js";

/** Policies and rollout (docs/policy-rollout.md). */
export async function policiesAndRollout(app: FastifyInstance, ctx: ApiContext) {
  await app.register(policyRoutes, ctx);
  await app.register(rolloutRoutes, ctx);
  await app.register(analysisRoutes, ctx);
  await app.register(evidenceRoute, ctx);
}
