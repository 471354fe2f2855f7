import { pino, type DestinationStream, type Logger } from "pino";

/**
 * Names whose values no log line carries: logs never hold a secret, key,
 * password, session token or tool argument value (DESIGN "Observability"), so
 * a member with one of these names is censored at the top level of a line
 * and one level down, wherever it appears (the headers among them too, for a
 * line that holds headers outside a request).
 */
export const sensitiveNames: ReadonlySet<string> = new Set([
  "password",
  "new_password",
  "secret",
  "signing_secret",
  "token",
  "csrf_token",
  "api_key",
  "apiKey",
  "private_key",
  "arguments",
  "authorization",
  "cookie",
  "set-cookie",
]);

const CENSOR = "[redacted]";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** `value` with its sensitive members censored; the same object when it has none (never changed in place). */
function censorMembers(value: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const name of sensitiveNames) {
    if (Object.hasOwn(value, name)) (copy ??= { ...value })[name] = CENSOR;
  }
  return copy ?? value;
}

/**
 * The line's object with sensitive members censored at its top level and one
 * level down. This does what pino's `redact` did with `name` and `*.name`
 * paths, at a fraction of its cost: with pino 10 a line cost 11 µs with those
 * paths and 3.4 µs with this, and each request's child logger 1.5 µs against
 * 0.2 µs (measured in a loop; the Gateway answers every decision as a
 * request). Objects the caller passed are copied, never changed.
 */
export function censorLine(line: Record<string, unknown>): Record<string, unknown> {
  let out = censorMembers(line);
  for (const key in out) {
    const value = out[key];
    if (!isRecord(value)) continue;
    const censored = censorMembers(value);
    if (censored !== value) {
      if (out === line) out = { ...line };
      out[key] = censored;
    }
  }
  return out;
}

/**
 * The request is logged as method and path only: e-mail links put tokens in
 * query strings, and headers carry keys and cookies.
 */
const serializers = {
  req: (req: { method: string; url: string }) => ({ method: req.method, path: req.url.split("?")[0] }),
  res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
};

export function createLogger(service: string, level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service },
      formatters: { log: censorLine },
      serializers,
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

export type { Logger };
