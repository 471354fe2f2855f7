// Structured JSON logs (pino). Callers log ids, names, kinds and error lines, never a secret,
// key, token or request body. `time` is ISO 8601 (UTC), as in the Cloud API's and the Gateway's
// logs (docs/operations.md), so one log pipeline reads all three.
import { pino, type DestinationStream } from "pino";

export type Logger = Pick<pino.Logger, "info" | "warn" | "error" | "debug">;

export function createLogger(
  level = process.env.LOG_LEVEL ?? "info",
  destination?: DestinationStream,
): Logger {
  return pino(
    { level, base: { component: "operator" }, timestamp: pino.stdTimeFunctions.isoTime },
    destination,
  );
}
