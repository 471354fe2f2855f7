import type { BodyOf, SignedObject } from "@countersign/protocol/evidence";
import {
  compilePolicy,
  parsePolicy,
  policyDigest,
  scaledAmount,
  UNKNOWN_ARGUMENTS,
} from "@countersign/protocol/policy";
import { storedObjects } from "@countersign/core/evidence";
import type { Queryable } from "@countersign/core/store";
import type { DecisionCheck } from "@countersign/protocol/wire";
import { pathOf } from "./receipt-detail.js";
import { proposalObjectIdOf, storedPolicyVersion, type ReceiptRow } from "./store.js";

type Verdict = { policy_effect: string; rule_id: string | null };

/**
 * The decision check of SPEC 4.4 (docs/evidence-api.md): re-evaluates the
 * stored policy document whose digest the TASK signs, on the call the TASK
 * signs, and says whether it still gives the decision the PROPOSAL signs.
 * Arguments are not kept (only their digest), so argument conditions are
 * evaluated as unknown: when they could change the winner the answer is
 * `undetermined` with every possible decision, never a guess.
 */
export async function decisionCheck(
  db: Queryable,
  organizationId: string,
  r: ReceiptRow,
  file: Buffer,
  now: Date,
): Promise<DecisionCheck> {
  const answer = await check(db, organizationId, r, file, now);
  // `matches`: whether the document still gives the signed decision; null when that cannot be decided.
  return {
    ...answer,
    matches: answer.status === "consistent" ? true : answer.status === "differs" ? false : null,
  };
}

async function check(
  db: Queryable,
  organizationId: string,
  r: ReceiptRow,
  file: Buffer,
  now: Date,
): Promise<Omit<DecisionCheck, "matches">> {
  const bundle = JSON.parse(file.toString("utf8"));
  const path = pathOf(bundle);
  const task = path[0] as SignedObject<BodyOf<"TASK">> | undefined;
  let proposal = path.find((s) => s.body.type === "PROPOSAL") as SignedObject<BodyOf<"PROPOSAL">> | undefined;
  // A cancellation receipt covers TASK → CANCELLATION only; the PROPOSAL is the action's stored one.
  if (!proposal && task) {
    const id = await proposalObjectIdOf(db, r.id);
    if (id)
      proposal = (await storedObjects(db, [id])).get(id) as SignedObject<BodyOf<"PROPOSAL">> | undefined;
  }
  const base = { receipt_id: r.r_id, protected_action_id: r.id, checked_at: now.toISOString() };
  if (!task)
    return {
      ...base,
      status: "undetermined",
      reason: "the bundle's path has no TASK",
      policy: null,
      signed: null,
      evaluated: null,
      possible: [],
    };

  const signedPolicy = task.body.payload.policy;
  const signed: Verdict | null = proposal
    ? { policy_effect: proposal.body.payload.policy_effect, rule_id: proposal.body.payload.rule_id }
    : null;
  const stored = await storedPolicyVersion(db, organizationId, signedPolicy.version_id);
  const common = {
    ...base,
    policy: signedPolicy,
    signed,
    call: {
      tool: task.body.payload.tool,
      action: task.body.payload.action,
      amount: task.body.payload.amount,
      arguments_digest: task.body.payload.arguments_digest,
    },
  };
  if (!stored)
    return {
      ...common,
      status: "undetermined",
      reason: "the policy version signed into the TASK is not stored",
      document_digest: null,
      evaluated: null,
      possible: [],
    };
  const digest = policyDigest(stored.document);
  if (digest !== signedPolicy.digest) {
    return {
      ...common,
      status: "differs",
      reason: "the stored document's digest is not the digest signed into the TASK",
      document_digest: digest,
      evaluated: null,
      possible: [],
    };
  }
  if (!signed)
    return {
      ...common,
      status: "undetermined",
      reason: "no signed PROPOSAL records the decision",
      document_digest: digest,
      evaluated: null,
      possible: [],
    };

  const compiled = compilePolicy(parsePolicy(stored.document));
  const p = task.body.payload;
  const input = {
    tool: p.tool,
    action: p.action,
    amount: p.amount?.value ?? null,
    currency: p.amount?.currency ?? null,
  };
  const open = compiled.decideOpen(p.tool, p.action, scaledAmount(input), input.currency, UNKNOWN_ARGUMENTS);
  const possible = open.possible.map((d) => ({ policy_effect: d.effect, rule_id: d.rule_id }));
  if (!open.decision) {
    const could = possible.some(
      (d) => d.policy_effect === signed.policy_effect && d.rule_id === signed.rule_id,
    );
    return {
      ...common,
      status: could ? "undetermined" : "differs",
      reason: could
        ? "argument conditions could change the decision and arguments are kept only as a digest; the signed decision is one of the possible ones"
        : "no decision the document can give for this call is the signed one",
      document_digest: digest,
      evaluated: null,
      possible,
    };
  }
  const evaluated = { policy_effect: open.decision.effect, rule_id: open.decision.rule_id };
  const same = evaluated.policy_effect === signed.policy_effect && evaluated.rule_id === signed.rule_id;
  return {
    ...common,
    status: same ? "consistent" : "differs",
    reason: same
      ? "the signed policy document still gives the signed decision"
      : "the signed policy document gives another decision",
    document_digest: digest,
    evaluated,
    possible,
  };
}
