import { canonicalJson, digestOf, sha256Digest } from "@countersign/protocol/canonical";
import { issueStoredReceipt, storedIdentityLogs } from "../evidence/index.js";
import type { GatewayIdentity } from "../identities/index.js";
import type { GatewayCode } from "@countersign/protocol/errors";
import {
  followingOwnStep,
  signObject,
  timestamp,
  type BodyOf,
  type Kid,
  type SignedObject,
  type StepBody,
} from "@countersign/protocol/evidence";
import { newRowId, type Pool } from "../store/index.js";
import type { Queryable } from "../store/queryable.js";
import {
  finish,
  receiptCreated,
  receiptRecord,
  type FinishedAction,
  type ResultWriter,
} from "../actions/index.js";
import type { ExecutionPlan } from "./claim.js";
import type { ServiceAwareCall } from "./service-aware.js";

/** What the upstream call came to, as the RESULT states it. */
export type ExecutionOutcome =
  /** `attestation`: a service-aware upstream's, already checked; the receipt carries it. */
  | { kind: "result"; result: Record<string, unknown>; isError: boolean; attestation?: SignedObject }
  | { kind: "failure"; code: GatewayCode };

export interface FinishedExecution {
  status: "succeeded" | "failed";
  errorCode: ResultErrorCode | null;
  /** The upstream result to hand back (null when there is none or it could not be stored). */
  result: Record<string, unknown> | null;
  receipt: { id: string; receiptObjectId: string; resultObjectId: string } | null;
}

export type Finish =
  { recorded: true; finished: FinishedExecution } | { recorded: false; code: "RESULT_NOT_RECORDED" };

/** PostgreSQL jsonb cannot hold U+0000: such a result is signed but not stored (RESULT_NOT_STORABLE). */
const storable = (text: string) => !text.includes("\\u0000");

/** A RESULT's error code: the Gateway's codes, and INTERRUPTED written by recovery (SPEC 2.6). */
export type ResultErrorCode = GatewayCode | "INTERRUPTED";

interface ResultFacts {
  status: "succeeded" | "failed";
  errorCode: ResultErrorCode | null;
  digest: `sha256:${string}`;
  stored: Record<string, unknown> | null;
}

function factsOf(outcome: ExecutionOutcome): ResultFacts {
  if (outcome.kind === "failure")
    return {
      status: "failed",
      errorCode: outcome.code,
      digest: digestOf({ error_code: outcome.code }),
      stored: null,
    };
  let text: string;
  try {
    text = canonicalJson(outcome.result);
  } catch {
    return {
      status: "failed",
      errorCode: "OUTPUT_NOT_CANONICAL",
      digest: digestOf({ error_code: "OUTPUT_NOT_CANONICAL" }),
      stored: null,
    };
  }
  const digest = sha256Digest(text);
  if (!storable(text)) return { status: "failed", errorCode: "RESULT_NOT_STORABLE", digest, stored: null };
  return outcome.isError
    ? { status: "failed", errorCode: "UPSTREAM_TOOL_ERROR", digest, stored: outcome.result }
    : { status: "succeeded", errorCode: null, digest, stored: outcome.result };
}

/**
 * Signs the RESULT of a claimed execution and records it with its receipt
 * (kind execution, outcome succeeded or failed) and `receipt.created`, in
 * one transaction and only while the action is still executing: if recovery
 * closed it meanwhile, nothing is written (RESULT_NOT_RECORDED).
 */
export async function finishExecution(
  pool: Pool,
  identity: GatewayIdentity,
  plan: ExecutionPlan,
  outcome: ExecutionOutcome,
  now: Date,
  results?: ResultWriter,
): Promise<Finish> {
  const finished = await recordResult(
    pool,
    identity,
    plan,
    factsOf(outcome),
    now,
    outcome.kind === "result" ? outcome.attestation : undefined,
    results,
  );
  return finished ? { recorded: true, finished } : { recorded: false, code: "RESULT_NOT_RECORDED" };
}

/** What a RESULT is recorded from: the plan, of which a service-aware server's identity only. */
export type RecordedPlan = Omit<ExecutionPlan, "serviceAware"> & {
  serviceAware?: Pick<ServiceAwareCall, "serverKid" | "serverIdentities">;
};

/**
 * The RESULT, receipt and event of an execution still executing; undefined when it no longer was.
 * `results`: the process's batched RESULT writes (the Gateway's calls), else one statement on `db`.
 */
export async function recordResult(
  db: Queryable,
  identity: GatewayIdentity,
  plan: RecordedPlan,
  facts: ResultFacts,
  now: Date,
  attestation?: SignedObject,
  results?: ResultWriter,
): Promise<FinishedExecution | undefined> {
  const execution = plan.path[plan.path.length - 1]!;
  const result = signObject(
    followingOwnStep(execution, {
      type: "RESULT",
      actor: identity.signer.kid,
      on_behalf_of: execution.body.on_behalf_of!,
      delegations: [],
      issued_at: timestamp(now),
      payload: { status: facts.status, result_digest: facts.digest, error_code: facts.errorCode },
    }) as BodyOf<"RESULT">,
    identity.signer,
  );
  const logs = plan.identityLogs ?? (await storedIdentityLogs(db, plan.signerKids));
  // The Gateway vouches for the server identity registered for the upstream, attested or not.
  const server = plan.serviceAware;
  const receipt = issueStoredReceipt(
    identity,
    [...plan.path, result as SignedObject<StepBody>],
    [plan.delegation, ...(attestation ? [attestation] : [])],
    [...logs, ...(server?.serverIdentities ?? [])],
    now,
    server ? [server.serverKid as Kid] : [],
  );
  const receiptId = newRowId();
  const event = receiptCreated({
    receipt_id: receiptId,
    protected_action_id: plan.actionId,
    receipt_object_id: receipt.receiptObjectId,
    thread_id: receipt.threadId,
    outcome: receipt.outcome,
    bundle_sha256: receipt.bundleSha256,
  });
  const finished: FinishedAction = {
    actionId: plan.actionId,
    organizationId: plan.organizationId,
    status: facts.status,
    errorCode: facts.errorCode,
    result: facts.stored === null ? null : JSON.stringify(facts.stored),
    // The signed RESULT's sealed canonical text, not a second walk of it.
    resultObject: { id: result.id, json: canonicalJson(result) },
    receipt: receiptRecord(receiptId, receipt, identity.signer.kid),
    receiptCreated: event.data,
  };
  const recorded = await (results ? results.finish(finished) : finish(db, finished));
  if (!recorded) return undefined;
  return {
    status: facts.status,
    errorCode: facts.errorCode,
    result: facts.stored,
    receipt: { id: receiptId, receiptObjectId: receipt.receiptObjectId, resultObjectId: result.id },
  };
}

export { factsOf as resultFactsOf, type ResultFacts };
