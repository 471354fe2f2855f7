import { hmacMatches, type AuthenticatedKey, type ParsedKey } from "../keys/index.js";
import type { DecisionContext } from "./context.js";
import { Bounded } from "./bounded.js";

/**
 * A decision made from what this process read before, not from a fresh
 * read: the write holds only while the organization's configuration revision
 * is still `revision` (migration 0026), and takes the key's `cost` tokens
 * itself (record/store.ts). Nothing of such a decision is answered unless its
 * write held: otherwise the call is decided again from a fresh read
 * (StaleAdmission).
 */
export interface WarmTicket {
  revision: string;
  apiKeyId: string;
  cost: number;
}

/**
 * Thrown by a decision made from a warm admission when its write did not
 * hold (the configuration moved, the bucket was empty, a claim's re-check
 * failed, another request holds the idempotency key) or when its verdict
 * would be answered without a write: nothing was recorded, sent or charged,
 * and the endpoint runs the whole request again with a fresh admission,
 * which answers exactly as if the warm attempt had never happened.
 */
export class StaleAdmission extends Error {
  /** The write lost to another request with the same idempotency key (SPEC 4.2 DUPLICATE_IN_FLIGHT). */
  readonly raced: boolean;
  constructor(raced: boolean) {
    super("the decision was made from a stale admission; decide again from a fresh read");
    this.name = "StaleAdmission";
    this.raced = raced;
  }
}

// Why a bound on age, when the revision already names what is current: a
// fact no trigger sees (the installation's default plan after a restart of
// another replica, a clock that jumped) is re-read at least this often.
const MAX_AGE_MS = 30_000;
const MAX_ENTRIES = 10_000;
// How long a key whose bucket a warm write found short is admitted by reads only: a key calling
// over its allowance is refused by the admission, before any decision is made and signed for it.
const COOL_MS = 1_000;

interface KeyEntry {
  hmac: Buffer;
  key: AuthenticatedKey;
  expiresAt: number | null;
  revision: string;
  at: number;
}

interface ContextEntry {
  context: DecisionContext;
  revision: string;
  at: number;
}

const contextKey = (agentId: string, tool: string, defaultPlan: string) =>
  `${agentId}\u0000${tool}\u0000${defaultPlan}`;

/**
 * One Gateway process's warm admissions: the gateway keys and decision
 * contexts its fresh admissions read, each with the organization's
 * configuration revision it was read at. A call is admitted warm only when
 * its key and its context were read at the revision this process last saw
 * for the organization, so one stale write makes every entry of the
 * organization cold until the next fresh read.
 */
export class WarmAdmissions {
  private readonly keys = new Bounded<string, KeyEntry>(MAX_ENTRIES);
  private readonly contexts = new Bounded<string, ContextEntry>(MAX_ENTRIES);
  private readonly revisions = new Bounded<string, string>(MAX_ENTRIES);
  /** Keys admitted by reads only until then (ms), by key id. */
  private readonly cooled = new Bounded<string, number>(MAX_ENTRIES);
  /** Idempotency keys of calls this process decided or resumed, by agent. */
  private readonly idempotencyKeys = new Bounded<string, true>(MAX_ENTRIES);

  constructor(private readonly clock: () => number = Date.now) {}

  /** What a fresh admission read: a genuine gateway key that passed every check, and its call's context. */
  remember(
    prefix: string,
    hmac: Buffer,
    key: AuthenticatedKey,
    expiresAt: Date | null,
    revision: string,
    intent: { tool: string; defaultPlan: string },
    context: DecisionContext,
  ): void {
    const at = this.clock();
    this.revisions.set(key.organizationId, revision);
    this.keys.set(prefix, { hmac, key, expiresAt: expiresAt?.getTime() ?? null, revision, at });
    // Only a context a decision can be recorded from: an unknown tool or an inactive agent is answered fresh.
    if (context.tool === null || context.agent.status !== "active") return;
    this.contexts.set(contextKey(context.agent.id, intent.tool, intent.defaultPlan), {
      context: { ...context, existingActionId: null },
      revision,
      at,
    });
  }

  /** The organization's configuration moved (a warm write did not hold): nothing of it is warm until read again. */
  forget(organizationId: string): void {
    this.revisions.set(organizationId, "");
  }

  /**
   * A call under this idempotency key came to this process: a later call repeating it (an agent
   * asking again for the outcome, or for a person's decision) is admitted by a read, which finds
   * the recorded action, instead of being decided warm only for its write to find the key taken.
   */
  sawIdempotencyKey(agentId: string, idempotencyKey: string): void {
    this.idempotencyKeys.set(`${agentId}\u0000${idempotencyKey}`, true);
  }

  /** A warm write found the key's bucket short: its calls are admitted by reads for a while. */
  cool(apiKeyId: string): void {
    this.cooled.set(apiKeyId, this.clock() + COOL_MS);
  }

  /**
   * The key and the context of a call, when this process holds both at the
   * organization's current revision as it last saw it, the presented secret
   * is the key's and the key has not expired by the clock; else undefined
   * (admit fresh). Time-bound facts of the context are judged now: an
   * observe window past its end is gone (expired delegations are the
   * pipeline's to skip).
   */
  admit(
    parsed: ParsedKey,
    hmac: Buffer,
    cost: number,
    intent: { tool: string; defaultPlan: string; idempotencyKey: string | null },
  ): { key: AuthenticatedKey; context: DecisionContext; ticket: WarmTicket } | undefined {
    const now = this.clock();
    const entry = this.keys.get(parsed.prefix);
    if (!entry || now - entry.at > MAX_AGE_MS) return undefined;
    const key = entry.key;
    if (this.revisions.get(key.organizationId) !== entry.revision) return undefined;
    if ((this.cooled.get(key.id) ?? 0) > now) return undefined;
    if (
      intent.idempotencyKey !== null &&
      this.idempotencyKeys.get(`${key.agentId}\u0000${intent.idempotencyKey}`)
    )
      return undefined;
    if (!hmacMatches(hmac, entry.hmac) || key.environment !== parsed.environment) return undefined;
    if (entry.expiresAt !== null && entry.expiresAt <= now) return undefined;
    const held = this.contexts.get(contextKey(key.agentId!, intent.tool, intent.defaultPlan));
    if (!held || held.revision !== entry.revision || now - held.at > MAX_AGE_MS) return undefined;
    const window = held.context.observeWindow;
    const context =
      window && Date.parse(window.endsAt) <= now ? { ...held.context, observeWindow: null } : held.context;
    return { key, context, ticket: { revision: entry.revision, apiKeyId: key.id, cost } };
  }
}
