import { canonicalJson } from "@countersign/protocol/canonical";
import type { ActionRecord, ReceiptRecord } from "../../actions/index.js";
import type { EventRecord } from "../../webhooks/outbox.js";
import type { WarmTicket } from "../warm-admission.js";

/**
 * What a decision writes, as one value (built by write.ts, written in one statement by store.ts or
 * with others by batch-store.ts): the protected action, its signed objects, the receipt of a final
 * decision, the approval request of a held one, and the events.
 */

export interface ObjectRecord {
  objectId: string;
  type: string;
  object: unknown;
}

/**
 * The objects as the JSON the write reads. A signed object carries its canonical text (the
 * protocol's signObject seals it), which canonicalJson returns as it is: the objects are not
 * serialized a second time for the write (JSON.stringify walked them again).
 */
export function objectsJson(objects: ObjectRecord[] | ObjectRecord[][]): string {
  return canonicalJson(objects);
}

export interface ApprovalRecord {
  id: string;
  roles: string[];
  approverCount: number;
  approverKids: string[];
  expiresAt: Date;
}

export interface DecisionWrite {
  action: ActionRecord;
  objects: ObjectRecord[];
  receipt: ReceiptRecord | null;
  approval: ApprovalRecord | null;
  events: EventRecord[];
  /** null: the plan has no monthly limit (counted in its connection's shard, no contention). */
  monthlyLimit: number | null;
  /**
   * An allowed Gateway-enforced call claimed for execution in the same write (its EXECUTION is
   * among `objects`): recorded executing, and only while what the claim re-checks still holds.
   */
  claim?: ClaimWithDecision;
  /**
   * Decided from a warm admission (warm-admission.ts): the write holds only at
   * the ticket's configuration revision and when the key's bucket has the
   * tokens, which it takes; else nothing is written ("stale").
   */
  warm?: WarmTicket;
}

/** What a claim made with the decision re-checks under its share locks, and what it records. */
export interface ClaimWithDecision {
  executionObjectId: string;
  deadline: Date;
  delegationId: string;
  policyId: string;
  policyVersionId: string;
  policyVersion: number;
  toolId: string;
  /** The binding the decision was made with: the tool must still be bound, and authorized, to it. */
  binding: unknown;
}

/**
 * `claim_refused`: something the claim re-checks changed since the context was read; nothing was written.
 * A warm write that does not hold writes and takes nothing: `stale`, the configuration moved (or,
 * claimed, a re-check failed); `repeat`, an action is recorded under the call's idempotency key;
 * `bucket_short`, the key's bucket lacks the call's tokens.
 */
export type RecordOutcome =
  "recorded" | "plan_limit" | "idempotency_conflict" | "claim_refused" | "stale" | "repeat" | "bucket_short";
