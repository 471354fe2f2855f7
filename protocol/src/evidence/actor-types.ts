import type { ActorType } from "./identity.js";
import type { ObjectType } from "./signed-object.js";

/**
 * Which kind of identity may sign each object type: the Gateway states what
 * it decided and did, people approve or reject, the organization principal
 * grants, revokes and cancels (SPEC 2.1, 2.5, 2.7), attesters vouch.
 */
export const signerActorTypes: Record<ObjectType, readonly ActorType[]> = {
  TASK: ["gateway"],
  PROPOSAL: ["gateway"],
  EXECUTION: ["gateway"],
  RESULT: ["gateway"],
  RECEIPT: ["gateway"],
  APPROVAL: ["person"],
  REJECTION: ["person"],
  CANCELLATION: ["principal"],
  DELEGATION: ["principal"],
  REVOCATION: ["principal"],
  ATTESTATION: ["mcp_server", "gateway"],
};
