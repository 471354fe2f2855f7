import { ServiceError } from "@countersign/protocol/errors";
import type { Queryable } from "@countersign/core/store";
import { limits, type LimitName } from "./limits.js";
import { deleteOldRateLimitCounters, hitRateLimitCounters } from "./store.js";

/** One limit applied to one subject (an address, an e-mail, a user id, ...). */
export interface Hit {
  name: LimitName;
  subject: string;
}

/**
 * Count a request against every given limit at once in PostgreSQL (so the
 * limits hold across api processes), or against none when any is reached.
 * Returns 0 when counted, else the seconds until the fullest window ends.
 */
export async function hitLimits(db: Queryable, hits: Hit[]): Promise<number> {
  if (hits.length === 0) return 0;
  const keys = hits.map((h) => `${h.name}:${h.subject}`);
  const wait = await hitRateLimitCounters(
    db,
    keys,
    hits.map((h) => limits[h.name].limit),
    hits.map((h) => limits[h.name].windowSeconds),
  );
  // Old windows are useless; any process removes them now and then.
  if (Math.random() < 0.01) await deleteOldRateLimitCounters(db);
  return wait;
}

export function rateLimited(waitSeconds: number): ServiceError {
  return new ServiceError(
    "RATE_LIMITED",
    `too many requests; retry in ${waitSeconds} seconds`,
    { retry_after_seconds: waitSeconds },
    { "retry-after": String(waitSeconds) },
  );
}

/** Count the request or refuse it with 429 RATE_LIMITED (nothing else has happened yet). */
export async function enforceLimits(db: Queryable, hits: Hit[]): Promise<void> {
  const wait = await hitLimits(db, hits);
  if (wait > 0) throw rateLimited(wait);
}
