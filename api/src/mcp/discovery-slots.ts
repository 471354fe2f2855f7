import { ServiceError } from "@countersign/protocol/errors";
import type { Pool } from "@countersign/core/store";
import { advisoryUnlock, tryAdvisoryLock } from "./slot-locks-store.js";

/** SPEC 8.1: discovery (and tool creation that discovers) runs 2 at a time per organization, 8 overall. */
export const discoverySlots = { perOrganization: 2, overall: 8 } as const;
const ORG_LOCKS = 0x636f6e66; // advisory lock namespaces of this module
const ALL_LOCKS = 0x636f6e67;
const RETRY_AFTER_SECONDS = 5;

const busy = (what: string) =>
  new ServiceError(
    "DISCOVERY_BUSY",
    `${what}; try again shortly`,
    { retry_after_seconds: RETRY_AFTER_SECONDS },
    { "retry-after": String(RETRY_AFTER_SECONDS) },
  );

/**
 * Runs `fn` holding one of the organization's discovery slots and one of the
 * installation's, as PostgreSQL session advisory locks, so the limits hold
 * across every api process. The locks live on one pooled connection held for
 * the discovery and go away with it if the process dies.
 */
export async function withDiscoverySlot<T>(
  pool: Pool,
  organizationId: string,
  fn: () => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  const held: [number, string][] = [];
  const tryLock = async (ns: number, key: string) => {
    const ok = await tryAdvisoryLock(client, ns, key);
    if (ok) held.push([ns, key]);
    return ok;
  };
  try {
    let org = false;
    for (let i = 0; i < discoverySlots.perOrganization && !org; i++)
      org = await tryLock(ORG_LOCKS, `${organizationId}:${i}`);
    if (!org) throw busy(`this organization already runs ${discoverySlots.perOrganization} discoveries`);
    let all = false;
    for (let i = 0; i < discoverySlots.overall && !all; i++) all = await tryLock(ALL_LOCKS, `all:${i}`);
    if (!all) throw busy(`the service already runs ${discoverySlots.overall} discoveries`);
    return await fn();
  } finally {
    for (const [ns, key] of held) await advisoryUnlock(client, ns, key).catch(() => undefined);
    client.release();
  }
}
