import { randomUUID } from "node:crypto";

/**
 * A new id for a row the hot path writes (an action, its receipts, an
 * approval request): a time-ordered UUID (RFC 9562 version 7). New keys land
 * on the rightmost pages of the primary key's index and of every index
 * keyed by them (a receipt's or signed object's action), as a serial's would:
 * a random id sends each insert to a random leaf, and once an index is
 * larger than a checkpoint interval touches, nearly each of those inserts
 * puts a whole page in the WAL (`test/bench/row-id-probe.ts`: on a 2 million
 * row table after a checkpoint, 2.62 KiB of WAL per insert against 0.26).
 * The ids stay unguessable (74 random bits) and any replica mints them
 * without a round trip; the database's own default is `uuid_v7()`
 * (migration 0029), built the same way.
 *
 * A version 4 UUID from node:crypto with the Unix time in milliseconds over
 * its first 48 bits and the version nibble set to 7 (the variant bits are
 * already RFC 9562's): `randomUUID` draws from a pool of random bytes, where
 * the `uuid` package's v7 makes a `getRandomValues` call per id (0.6 against
 * 1.4 µs an id in a loop, and the call showed in the Gateway's profile).
 * Ids of one millisecond are in random order; across milliseconds they increase.
 */
export function newRowId(): string {
  const random = randomUUID();
  const millis = Date.now().toString(16).padStart(12, "0");
  return `${millis.slice(0, 8)}-${millis.slice(8)}-7${random.slice(15)}`;
}
