/** Attempts of one delivery round before it is Failed (SPEC 6.4). */
export const MAX_ATTEMPTS = 8;

/** Each attempt must finish within this (SPEC 8.4). */
export const ATTEMPT_TIMEOUT_MS = 10_000;

/** Receiver answers are read up to this; a larger declared Content-Length fails the attempt (SPEC 6.4). */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/** The previous secret keeps signing this long after a rotation (SPEC 8.4). */
export const PREVIOUS_SECRET_MS = 24 * 60 * 60 * 1000;

/**
 * Delay before the next attempt after failed attempt `n` (1-based): 30 s
 * times 2^(n-1), at most 6 hours; null after the last attempt (Failed).
 */
export function retryDelayMs(n: number): number | null {
  if (n >= MAX_ATTEMPTS) return null;
  return Math.min(30_000 * 2 ** (n - 1), 6 * 60 * 60 * 1000);
}
