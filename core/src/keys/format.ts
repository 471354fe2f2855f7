/**
 * API key strings of SPEC 2.2: `svc_<environment>_<prefix>_<secret>`, with a
 * 12-character prefix of lowercase letters and digits and a 32-byte secret as
 * 43 base64url characters. The secret may itself contain `_`, so the string is
 * parsed by position, never split.
 */
export type KeyEnvironment = "live" | "test";

export interface ParsedKey {
  environment: KeyEnvironment;
  prefix: string;
  secret: string;
}

const KEY = /^svc_(live|test)_([a-z0-9]{12})_([A-Za-z0-9_-]{43})$/;

/** The parts of a well-formed key, or undefined (a trailing newline or space is malformed too). */
export function parseKey(text: string): ParsedKey | undefined {
  const m = KEY.exec(text);
  if (!m) return undefined;
  return { environment: m[1] as KeyEnvironment, prefix: m[2]!, secret: m[3]! };
}

export function formatKey(k: ParsedKey): string {
  return `svc_${k.environment}_${k.prefix}_${k.secret}`;
}

/** The key from an `Authorization: Bearer <key>` header, or undefined. */
export function bearerKey(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer ([^\s]+)$/.exec(header);
  return m?.[1];
}
