import { MAX_WAIT_SECONDS } from "@countersign/protocol/wire";

export type CallMeta =
  { ok: true; idempotencyKey: string | null; waitSeconds: number } | { ok: false; detail: string };

/**
 * Per-call metadata of SPEC 4.2: `service/idempotency-key` (1 to 200
 * characters) and `service/wait-seconds` (a whole number from 0; larger than
 * 60 lowered to 60). Anything else under `service/` is refused INVALID_META;
 * other `_meta` members (progress tokens and the like) are the client's.
 */
export function callMeta(meta: Record<string, unknown> | undefined): CallMeta {
  const m = meta ?? {};
  for (const name of Object.keys(m)) {
    if (
      name.startsWith("service/") &&
      name !== "service/idempotency-key" &&
      name !== "service/wait-seconds"
    ) {
      return { ok: false, detail: `unknown metadata "${name}"` };
    }
  }
  const key = m["service/idempotency-key"];
  if (key !== undefined && (typeof key !== "string" || key.length < 1 || key.length > 200)) {
    return { ok: false, detail: "service/idempotency-key must be a string of 1 to 200 characters" };
  }
  const wait = m["service/wait-seconds"];
  if (wait !== undefined && (typeof wait !== "number" || !Number.isInteger(wait) || wait < 0)) {
    return { ok: false, detail: "service/wait-seconds must be a whole number of seconds, 0 or more" };
  }
  return {
    ok: true,
    idempotencyKey: (key as string | undefined) ?? null,
    waitSeconds: Math.min((wait as number | undefined) ?? 0, MAX_WAIT_SECONDS),
  };
}
