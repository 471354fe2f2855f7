import { v7 } from "uuid";

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
 * (migration 0029). Ids within one process increase strictly.
 */
export function newRowId(): string {
  return v7();
}
