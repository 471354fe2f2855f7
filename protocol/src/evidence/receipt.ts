import type { Signer } from "./ed25519.js";
import type { ObjectId } from "./fields.js";
import { identityDigest, type IdentityDocument } from "./identity.js";
import type { Kid } from "./kid.js";
import { ownBody, signObject } from "./object.js";
import { receiptSchemaId, workflowId, type Outcome, type ReceiptKind } from "./receipt-payload.js";
import type { BodyOf, SignedObject, StepBody } from "./signed-object.js";
import { deriveSummary } from "./summary.js";

/**
 * Outcome rules (SPEC 3.1, 2.8), from the head of the path and how the TASK
 * said the call would run:
 *
 * | head         | TASK.execution | kind          | outcome              |
 * |--------------|----------------|---------------|----------------------|
 * | RESULT       | gateway        | execution     | RESULT.status        |
 * | REJECTION    | any            | closure       | final                |
 * | CANCELLATION | any            | closure       | final                |
 * | PROPOSAL     | caller         | authorization | pending              |
 * | APPROVAL     | caller         | authorization | granted              |
 *
 * Any other head has no receipt (a TASK alone, an EXECUTION without RESULT,
 * or a decision-only head on a Gateway-run call).
 */
export function deriveOutcome(
  path: readonly SignedObject<StepBody>[],
): { kind: ReceiptKind; outcome: Outcome } | undefined {
  const task = path[0]?.body;
  const head = path[path.length - 1]?.body;
  if (!task || task.type !== "TASK" || !head) return undefined;
  const execution = task.payload.execution;
  switch (head.type) {
    case "RESULT":
      return execution === "gateway" ? { kind: "execution", outcome: head.payload.status } : undefined;
    case "REJECTION":
    case "CANCELLATION":
      return { kind: "closure", outcome: "final" };
    case "PROPOSAL":
      return execution === "caller" ? { kind: "authorization", outcome: "pending" } : undefined;
    case "APPROVAL":
      return execution === "caller" ? { kind: "authorization", outcome: "granted" } : undefined;
    default:
      return undefined;
  }
}

export interface ReceiptInput {
  issuer: Signer;
  issued_at: string;
  /** TASK → head, in order. */
  path: readonly SignedObject<StepBody>[];
  /** Every other object the bundle carries (delegations relied on, their revocations, attestations), in bundle order. */
  supporting: readonly SignedObject[];
  /** Every identity document the bundle carries, in bundle order. */
  identities: readonly IdentityDocument[];
  trusted_attesters?: readonly Kid[];
}

/** Signs the RECEIPT over a path: outcome and summary are derived, never taken from the caller. */
export function issueReceipt(input: ReceiptInput): SignedObject<BodyOf<"RECEIPT">> {
  const derived = deriveOutcome(input.path);
  if (!derived) throw new Error("this path has no receipt (see deriveOutcome)");
  const task = input.path[0]!.body as BodyOf<"TASK">;
  const objects: ObjectId[] = [...input.path, ...input.supporting].map((o) => o.id);
  // Built from derived, typed values only (see ownBody).
  const body = ownBody({
    type: "RECEIPT",
    actor: input.issuer.kid,
    on_behalf_of: null,
    thread: null,
    parent: null,
    delegations: [],
    issued_at: input.issued_at,
    payload: {
      schema: receiptSchemaId,
      workflow: workflowId,
      kind: derived.kind,
      protected_action_id: task.payload.protected_action_id,
      root: input.path[0]!.id,
      head: input.path[input.path.length - 1]!.id,
      outcome: derived.outcome,
      objects,
      identities: input.identities.map((d) => ({
        kid: d.body.kid,
        seq: d.body.seq,
        digest: identityDigest(d),
      })),
      trusted_attesters: [...(input.trusted_attesters ?? [])],
      summary: deriveSummary(input.path),
    },
  });
  return signObject(body, input.issuer);
}
