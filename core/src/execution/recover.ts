import { digestOf } from "@countersign/protocol/canonical";
import { storedIdentityLogs, storedObjects } from "../evidence/index.js";
import type { GatewayIdentity } from "../identities/index.js";
import type { SignedObject, StepBody } from "@countersign/protocol/evidence";
import { inTransaction, type Pool } from "../store/index.js";
import { lockInterrupted } from "./recover-store.js";
import { recordResult, type RecordedPlan } from "./finish.js";

/**
 * Closes executions whose Gateway went away (SPEC 2.8 "an interrupted
 * execution has outcome failed although the real outcome is unknown"): an
 * action still executing after its deadline gets a RESULT failed /
 * INTERRUPTED and its receipt. The call is never run again. Claimed with
 * SKIP LOCKED, so any number of processes can run this side by side.
 */
export async function recoverInterrupted(
  pool: Pool,
  identity: GatewayIdentity,
  now: Date,
  limit = 20,
): Promise<number> {
  let recovered = 0;
  for (let i = 0; i < limit; i++) {
    const done = await inTransaction(pool, async (db) => {
      const a = await lockInterrupted(db, now);
      if (!a) return false;
      const ids = [
        a.task_object_id,
        a.proposal_object_id,
        ...(a.decision_object_id ? [a.decision_object_id] : []),
        a.execution_object_id,
      ];
      const objects = await storedObjects(db, ids);
      const path = ids.map((id) => objects.get(id)!) as SignedObject<StepBody>[];
      const approval = a.decision_object_id ? objects.get(a.decision_object_id) : undefined;
      // A service-aware server named by the EXECUTION never answered: the receipt still vouches for
      // its registered identity, so the verifier warns that no attestation came.
      const serverKid = (path[path.length - 1]!.body.payload as { server_kid?: string | null }).server_kid;
      const serverIdentities = serverKid ? await storedIdentityLogs(db, [serverKid]) : [];
      const plan: RecordedPlan = {
        actionId: a.id,
        organizationId: a.organization_id,
        path,
        delegation: a.delegation_object,
        signerKids: [path[0]!.body.on_behalf_of!, ...(approval ? [approval.body.actor] : [])],
        upstream: { url: "", authorization: null, tool: "" },
        ...(serverKid && serverIdentities.length > 0
          ? { serviceAware: { serverKid, serverIdentities } }
          : {}),
        meta: {
          agent: { id: a.agent_id, name: a.agent_name },
          tool: a.tool_name,
          action: a.action,
          environment: a.environment,
        },
      };
      await recordResult(
        db,
        identity,
        plan,
        {
          status: "failed",
          errorCode: "INTERRUPTED",
          digest: digestOf({ error_code: "INTERRUPTED" }),
          stored: null,
        },
        now,
      );
      return true;
    });
    if (!done) break;
    recovered++;
  }
  return recovered;
}

/** Runs recovery every few seconds until stopped; errors are reported and retried on the next pass. */
export function startRecovery(
  pool: Pool,
  identity: GatewayIdentity,
  onError: (err: unknown) => void,
  everyMs = 5000,
): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = recoverInterrupted(pool, identity, new Date()).catch(onError);
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
