import type { Pool } from "@countersign/core/store";
import type { OrganizationQueue } from "./limits/organization-queue.js";
import type { GatewayMetrics } from "./metrics.js";
import type { AuthorizeService } from "@countersign/core/decision";

/** What the Gateway's routes share: one per server instance. */
export interface GatewayContext {
  pool: Pool;
  keyHashSecret: Buffer;
  metrics: GatewayMetrics;
  queue: OrganizationQueue;
  decisions: AuthorizeService;
}
