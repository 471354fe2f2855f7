import { registerGatewayIdentity, type GatewayIdentity } from "@countersign/core/identities";
import { ServiceError } from "@countersign/protocol/errors";
import type { Pool } from "@countersign/core/store";

/** What the approval, action and receipt routes need beyond the pool (docs/evidence-api.md). */
export interface EvidenceOptions {
  /**
   * COUNTERSIGN_GATEWAY_SIGNING_KEY: the api signs the closure receipts of
   * rejections and cancellations with the Gateway's own identity (SPEC 2.8
   * `issuer_kid`). Without it those two routes answer 503.
   */
  gatewaySigningKey?: Uint8Array;
  /** Retention and verification clock (tests). */
  now?: () => Date;
}

declare module "../context.js" {
  interface CloudApiOptions {
    /** Approvals, actions, receipts, retention. */
    evidence?: EvidenceOptions;
  }
}

const identities = new WeakMap<Uint8Array, Promise<GatewayIdentity>>();

/** The installation's Gateway identity, registered (or adopted) once per process and key. */
export function gatewayIdentityOf(
  pool: Pool,
  options: EvidenceOptions | undefined,
): Promise<GatewayIdentity> {
  const seed = options?.gatewaySigningKey;
  if (!seed) {
    return Promise.reject(
      new ServiceError(
        "SERVICE_UNAVAILABLE",
        "this installation has no Gateway signing key configured, so it cannot sign closure receipts",
      ),
    );
  }
  let identity = identities.get(seed);
  if (!identity) {
    identity = registerGatewayIdentity(pool, seed);
    identity.catch(() => identities.delete(seed));
    identities.set(seed, identity);
  }
  return identity;
}
