import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import { LANGUAGE_REVISION } from "@countersign/core/decision";
import type { Pool } from "@countersign/core/store";
import { saveInstanceReport } from "./instance-store.js";

/** How often a replica reports itself (the language gate of SPEC 3.4 reads `last_seen_at`). */
export const REPORT_INTERVAL_MS = 15_000;

/** The Gateway's version: reported with each replica and named by its OpenAPI document. */
export const VERSION = "0.1.0";

/** This replica's id: host name plus a random suffix, so restarts and pods on one host stay apart. */
export function newInstanceId(): string {
  return `${hostname()}-${randomBytes(4).toString("hex")}`;
}

async function report(pool: Pool, instanceId: string): Promise<void> {
  const revisions = Array.from({ length: LANGUAGE_REVISION }, (_, i) => i + 1);
  await saveInstanceReport(pool, instanceId, VERSION, revisions);
}

/**
 * Reports the replica and the policy-language revisions it evaluates at start
 * and every 15 s, so the Cloud API knows which Gateways run (SPEC 3.4). A
 * failed report is retried on the next tick; it never stops the Gateway.
 */
export async function startInstanceReports(
  pool: Pool,
  instanceId: string,
  onError: (err: unknown) => void,
): Promise<() => void> {
  await report(pool, instanceId);
  const timer = setInterval(() => report(pool, instanceId).catch(onError), REPORT_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
