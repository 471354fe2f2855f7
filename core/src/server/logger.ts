import { pino, type DestinationStream, type Logger } from "pino";

/**
 * Paths pino removes from every log line. Logs never carry a secret, key,
 * password, session token or tool argument value (DESIGN "Observability"), so
 * anything under these names is censored at the top level and one level down.
 */
const sensitiveNames = [
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
];

export const redactedPaths = [
  "req.headers.authorization",
  "req.headers.cookie",
  'res.headers["set-cookie"]',
  ...sensitiveNames.flatMap((k) => [k, `*.${k}`]),
];

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
      redact: { paths: redactedPaths, censor: "[redacted]" },
      serializers,
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

export type { Logger };
