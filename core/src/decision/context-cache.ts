import { sealStored } from "@countersign/protocol/canonical";
import type { IdentityDocument, SignedObject } from "@countersign/protocol/evidence";
import { Bounded } from "./bounded.js";

/**
 * The evidence a Gateway already holds for one decision context: the
 * organization principal's identity log (by the identity row's revision) and
 * the signed objects of the agent's delegations (by delegation id). The
 * context statement is told what is held and sends only the rest, so a
 * decision does not carry the same documents over the wire and through
 * JSON.parse again. The database decides what is current: a held document
 * stands in only for the very revision or row the statement names, so a
 * changed principal or a new or revoked delegation is seen by the next read.
 */
export interface HeldEvidence {
  principal: { revision: string; documents: IdentityDocument[] } | null;
  delegations: ReadonlyMap<string, SignedObject>;
}

export const NOTHING_HELD: HeldEvidence = { principal: null, delegations: new Map() };

/** The statement's parameters for what is held: the principal's revision and the delegations' ids. */
export const heldParameters = (held: HeldEvidence): [string | null, string[]] => [
  held.principal?.revision ?? null,
  [...held.delegations.keys()],
];

// A held document goes into the bundle of every decision that uses it: its canonical text is
// taken once, when it is first held (sealStored: it is never changed, it came from the database).

// Bounds of the cache: organizations, agents and gateway keys a process keeps evidence for.
const MAX_ENTRIES = 10_000;

/** One Gateway process's held evidence, by organization and agent, and which agent a key prefix acts for. */
export class ContextCache {
  private readonly principals = new Bounded<string, NonNullable<HeldEvidence["principal"]>>(MAX_ENTRIES);
  private readonly delegations = new Bounded<string, ReadonlyMap<string, SignedObject>>(MAX_ENTRIES);
  private readonly keys = new Bounded<string, { organizationId: string; agentId: string }>(MAX_ENTRIES);

  heldFor(organizationId: string, agentId: string): HeldEvidence {
    return {
      principal: this.principals.get(organizationId) ?? null,
      delegations: this.delegations.get(agentId) ?? NOTHING_HELD.delegations,
    };
  }

  /**
   * Before the key is read, the organization and agent are known only from
   * an earlier call with the same key prefix: a guess that saves bytes when
   * right and costs only the full documents when wrong.
   */
  heldForKey(prefix: string): HeldEvidence {
    const known = this.keys.get(prefix);
    return known ? this.heldFor(known.organizationId, known.agentId) : NOTHING_HELD;
  }

  rememberKey(prefix: string, organizationId: string, agentId: string): void {
    const known = this.keys.get(prefix);
    if (known?.organizationId !== organizationId || known.agentId !== agentId)
      this.keys.set(prefix, { organizationId, agentId });
  }

  /** What a context read carried, complete: the current principal's log and the agent's current delegations. */
  remember(
    organizationId: string,
    agentId: string,
    principal: { revision: string; documents: IdentityDocument[] } | null,
    delegations: Array<{ id: string; object: SignedObject }>,
  ): void {
    if (principal && this.principals.get(organizationId)?.revision !== principal.revision) {
      principal.documents.forEach(sealStored);
      this.principals.set(organizationId, principal);
    }
    const held = this.delegations.get(agentId);
    // Kept as read: a revoked or expired delegation leaves the cache with its row.
    if (!held || held.size !== delegations.length || delegations.some((d) => held.get(d.id) !== d.object)) {
      for (const d of delegations) if (held?.get(d.id) !== d.object) sealStored(d.object);
      this.delegations.set(agentId, new Map(delegations.map((d) => [d.id, d.object])));
    }
  }
}
