/**
 * Whether an error means "the database cannot be reached now" (answered 503
 * DATABASE_UNAVAILABLE / SERVICE_UNAVAILABLE with Retry-After) rather than a bug.
 */
const networkCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
]);

export function isDatabaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== "object") return false;
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e.code === "string") {
    if (networkCodes.has(e.code)) return true;
    // SQLSTATE class 08 (connection exception), 57P01-57P03 (admin shutdown, crash, cannot connect now),
    // 53300 too many connections, 3D000 the database does not exist (dropped or not created yet),
    // 25006 a write refused as read-only: nothing here opens a read-only transaction, so the server
    // reached is a standby, which happens while a failover or switchover moves the primary's address
    // (the address reaches an instance before its promotion, or a demoted primary): no primary now.
    if (
      /^08/.test(e.code) ||
      /^57P0[1-3]$/.test(e.code) ||
      e.code === "53300" ||
      e.code === "3D000" ||
      e.code === "25006"
    )
      return true;
  }
  const message = typeof e.message === "string" ? e.message : "";
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
    message,
  );
}
