import { callMetaNames, callMetaSchema, MAX_WAIT_SECONDS } from "@countersign/protocol/wire";

export type CallMeta =
  { ok: true; idempotencyKey: string | null; waitSeconds: number } | { ok: false; detail: string };

const known = new Set<string>(callMetaNames);

/** Why a member failed `callMetaSchema`, naming it and never its value. */
const invalid: Record<(typeof callMetaNames)[number], string> = {
  "service/idempotency-key": "service/idempotency-key must be a string of 1 to 200 characters",
  "service/wait-seconds": "service/wait-seconds must be a whole number of seconds, 0 or more",
};

/**
 * Per-call metadata of SPEC 4.2, by the Gateway's wire (`callMetaSchema`,
 * protocol/src/wire/gateway/mcp.ts): `service/idempotency-key` (1 to 200
 * characters) and `service/wait-seconds` (a whole number from 0; larger than
 * 60 lowered to 60). Anything else under `service/` is refused INVALID_META;
 * other `_meta` members (progress tokens and the like) are the client's.
 */
export function callMeta(meta: Record<string, unknown> | undefined): CallMeta {
  const m = meta ?? {};
  const unknown = Object.keys(m).find((name) => name.startsWith("service/") && !known.has(name));
  if (unknown !== undefined) return { ok: false, detail: `unknown metadata "${unknown}"` };
  const parsed = callMetaSchema.safeParse(m);
  if (!parsed.success) {
    const name = callMetaNames.find((n) => n === parsed.error.issues[0]?.path[0]);
    return { ok: false, detail: name ? invalid[name] : "_meta must be an object" };
  }
  return {
    ok: true,
    idempotencyKey: parsed.data["service/idempotency-key"] ?? null,
    waitSeconds: Math.min(parsed.data["service/wait-seconds"] ?? 0, MAX_WAIT_SECONDS),
  };
}
