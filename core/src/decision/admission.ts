import { checkKeyRow, hashSecret, parseKey, type KeyCheck } from "../keys/index.js";
import type { Queryable } from "../store/queryable.js";
import { admissionRows } from "./admission-store.js";
import { contextOf, type DecisionContext } from "./context.js";
import { NOTHING_HELD, type ContextCache } from "./context-cache.js";
import type { WarmAdmissions } from "./warm-admission.js";

/** What a call's decision is about, when the Gateway already knows it at the key check. */
export interface CallIntent {
  tool: string;
  idempotencyKey: string | null;
  defaultPlan: string;
}

export interface Admission {
  check: KeyCheck;
  /** Seconds until the bucket holds the call's cost; 0 when the tokens were taken. */
  waitSeconds: number;
  /** The decision context, read in the same statement when an intent was given and the key is genuine. */
  context: DecisionContext | undefined;
}

/**
 * The Gateway's key check (SPEC 5.4) and rate limit (8.2) in one round trip,
 * with the decision context when the call's tool is known: a decision is this
 * read and one write. Refusals keep their order: an unusable key is refused
 * before the rate limit is told. `cache` is the process's held evidence
 * (context-cache.ts): what it holds is not sent again, and it learns what was.
 *
 * `warm`: the process's warm admissions. With `use`, a call whose key and
 * context they hold at the organization's current revision is admitted with
 * no round trip at all, its decision made in one write that re-checks the
 * revision and takes the tokens (a context with a WarmTicket); a fresh
 * admission teaches them what it read.
 */
export async function admitGatewayCall(
  db: Queryable,
  hashKey: Buffer,
  text: string,
  cost: number,
  intent: CallIntent | null,
  cache?: ContextCache,
  warm?: { admissions: WarmAdmissions; use: boolean },
): Promise<Admission> {
  const parsed = parseKey(text);
  if (!parsed) return { check: { ok: false, reason: "malformed" }, waitSeconds: 0, context: undefined };
  const hmac = hashSecret(hashKey, parsed.secret);
  if (intent && warm?.use) {
    const hit = warm.admissions.admit(parsed, hmac, cost, intent);
    if (hit)
      return {
        check: { ok: true, key: hit.key },
        waitSeconds: 0,
        context: { ...hit.context, warm: hit.ticket },
      };
  }
  const held = intent && cache ? cache.heldForKey(parsed.prefix) : NOTHING_HELD;
  const { rows } = await admissionRows(db, parsed.prefix, hmac, cost, intent, held);
  const row = rows[0];
  const check = checkKeyRow(parsed, hmac, row, "gateway");
  if (!check.ok) return { check, waitSeconds: 0, context: undefined };
  const key = check.key;
  if (row!.context && cache) cache.rememberKey(parsed.prefix, key.organizationId, key.agentId!);
  const context = row!.context ? contextOf(key.organizationId, row!.context, held, cache) : undefined;
  if (context && intent && warm && row!.configuration_revision !== null)
    warm.admissions.remember(
      parsed.prefix,
      hmac,
      key,
      row!.expires_at,
      row!.configuration_revision,
      intent,
      context,
    );
  return { check, waitSeconds: row!.wait ?? 0, context };
}
