/**
 * What the organization principal signs in the browser: delegations, their revocations and
 * cancellations of actions. Each needs the principal's key held here; without it the page says
 * so and sends nothing.
 */
import { DashboardError } from "../api/errors.js";
import { delegationBody, objectBody, revocationBody, timestamp } from "./evidence.js";
import { principalKey } from "./principal-key.js";
import { signObjectWith } from "./webcrypto.js";

async function heldKey(organizationId: string, kid: string): Promise<CryptoKey> {
  const key = await principalKey(organizationId, kid);
  if (!key)
    throw new DashboardError(
      "PRINCIPAL_KEY_MISSING",
      "this browser does not hold the principal's key; restore it from the backup on the Principal page",
    );
  return key.privateKey;
}

export async function signDelegationHere(
  organizationId: string,
  principalKid: string,
  d: { agent_id: string; permissions: string[]; expires_at: Date },
) {
  const key = await heldKey(organizationId, principalKid);
  return signObjectWith(
    key,
    delegationBody(principalKid as `kid_${string}`, { organization_id: organizationId, ...d }),
  );
}

export async function signRevocationHere(
  organizationId: string,
  principalKid: string,
  delegationObjectId: string,
) {
  const key = await heldKey(organizationId, principalKid);
  return signObjectWith(key, revocationBody(principalKid as `kid_${string}`, delegationObjectId));
}

/** A CANCELLATION of the action's TASK (thread = parent = the TASK), as the CLI signs it. */
export async function signCancellationHere(
  organizationId: string,
  principalKid: string,
  taskObjectId: string,
  reason: string,
) {
  const key = await heldKey(organizationId, principalKid);
  const task = taskObjectId as `ko_${string}`;
  return signObjectWith(
    key,
    objectBody({
      type: "CANCELLATION",
      actor: principalKid as `kid_${string}`,
      on_behalf_of: null,
      thread: task,
      parent: task,
      delegations: [],
      issued_at: timestamp(new Date()),
      payload: { reason },
    }),
  );
}
