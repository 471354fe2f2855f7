import { usageError } from "../cloud/errors.js";

const units: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A delegation's expiry from `--expires-in 30d` (minutes, hours or days from now) or
 * `--expires-at 2026-12-31T00:00:00Z`; exactly one, and in the future, since a delegation
 * without an end is not a thing the protocol has.
 */
export function parseExpiry(expiresIn: string | undefined, expiresAt: string | undefined, now: Date): Date {
  if ((expiresIn === undefined) === (expiresAt === undefined))
    throw usageError("give exactly one of --expires-in DURATION (e.g. 90m, 12h, 30d) or --expires-at TIME");
  let at: Date;
  if (expiresIn !== undefined) {
    const match = /^([1-9][0-9]{0,5})([mhd])$/.exec(expiresIn);
    if (!match)
      throw usageError(`--expires-in ${expiresIn}: expected a whole number of m, h or d (e.g. 30d)`);
    at = new Date(now.getTime() + Number(match[1]) * units[match[2]!]!);
  } else {
    at = new Date(expiresAt!);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(expiresAt!) || Number.isNaN(at.getTime()))
      throw usageError(`--expires-at ${expiresAt}: expected an ISO 8601 time such as 2026-12-31T00:00:00Z`);
  }
  if (at.getTime() <= now.getTime()) throw usageError("the expiry is not in the future");
  return at;
}
