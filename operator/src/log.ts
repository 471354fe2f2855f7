// Structured JSON logs (pino). Callers log ids, names, kinds and error lines, never a secret,
// key, token or request body.
import { pino } from "pino";

export type Logger = Pick<pino.Logger, "info" | "warn" | "error" | "debug">;

export function createLogger(level = process.env.LOG_LEVEL ?? "info"): Logger {
  return pino({ level, base: { component: "operator" } });
}
