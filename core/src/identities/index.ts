/**
 * Organization principals, personal identities (SPEC 2.1) and the Gateway's own identity: how they are
 * stored, registered, bound, revoked, and read by the decision pipeline and
 * the approval route (is this organization's principal valid; which personal
 * identities may a member sign with).
 */
export {
  storedIdentity,
  principalOf,
  isPrincipalValid,
  principalHistory,
  personalIdentitiesOf,
  personOfIdentity,
  identityLogOf,
  type StoredIdentity,
} from "./identity-store.js";
export { submitPrincipal, type PrincipalSubmission, type PrincipalOutcome } from "./principal.js";
export {
  createChallenge,
  bindPersonalIdentity,
  revokePersonalIdentity,
  challengeMessage,
  MAX_PERSONAL_IDENTITIES,
  CHALLENGE_TTL_SECONDS,
  type Binding,
} from "./personal.js";
export { registerGatewayIdentity, type GatewayIdentity } from "./gateway.js";
