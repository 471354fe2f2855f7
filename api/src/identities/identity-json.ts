import type { StoredIdentity } from "@countersign/core/identities";
import type { Identity } from "@countersign/protocol/wire";

/** An identity as the Cloud API shows it: public material only (the private key never reaches the service). */
export function identityJson(i: StoredIdentity): Identity {
  return {
    kid: i.kid,
    status: i.status,
    public_key: i.publicKey,
    documents: i.documents,
    created_at: i.createdAt.toISOString(),
    retired_at: i.retiredAt?.toISOString() ?? null,
  };
}
