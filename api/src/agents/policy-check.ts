import { ServiceError } from "@countersign/protocol/errors";
import type { Queryable } from "@countersign/core/store";
import { policyExists } from "./store.js";

/** An agent may be assigned only a policy of its own organization (422 POLICY_NOT_FOUND otherwise). */
export async function checkPolicy(db: Queryable, orgId: string, policyId: string | null): Promise<void> {
  if (policyId === null || (await policyExists(db, orgId, policyId))) return;
  throw new ServiceError("POLICY_NOT_FOUND", "policy_id names no policy of this organization", {
    issues: [{ path: "policy_id", code: "not_found", message: "no such policy" }],
  });
}

export const nameTaken = () =>
  new ServiceError("NAME_TAKEN", "another agent of this organization has that name");
