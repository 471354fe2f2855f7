import { ServiceError } from "@countersign/protocol/errors";
import { declarationCapabilityKey, declarationSchema } from "@countersign/protocol/upstream";
import { storedIdentityLogs } from "@countersign/core/evidence";
import { serverIdentityOf } from "@countersign/core/execution";
import type { Queryable } from "@countersign/core/store";

/**
 * Whether what an MCP server declares at initialize (docs/evidence.md
 * section 11, "Declaring") agrees with the identity registered for it, so
 * that the Gateway's calls will not all fail: the same identity log the
 * Gateway reads before each call (`serverIdentityOf`) is read here.
 *
 * - declared nothing, no identity registered: an ordinary server;
 * - a declaration that is not a `service_evidence` 0.1 one with a KID, or an
 *   identity registered for a server that declares nothing:
 *   UPSTREAM_REFUSED (it would not take the evidence, nor attest);
 * - a declared KID that is not the registered one (or none is registered),
 *   or a registered KID with no stored log: UPSTREAM_IDENTITY_UNKNOWN;
 * - a stored log over 64 KiB: UPSTREAM_IDENTITY_TOO_LARGE.
 */
export async function checkDeclaredIdentity(
  db: Queryable,
  declared: unknown,
  registeredKid: string | null,
): Promise<void> {
  if (declared === undefined) {
    if (registeredKid === null) return;
    throw new ServiceError(
      "UPSTREAM_REFUSED",
      `the MCP server does not declare that it is service-aware (capabilities.experimental["${declarationCapabilityKey}"]): it would take no evidence and attest nothing, yet an identity is registered for it`,
      { reason: "not_service_aware", registered_kid: registeredKid },
    );
  }
  const d = declarationSchema.safeParse(declared);
  if (!d.success)
    throw new ServiceError(
      "UPSTREAM_REFUSED",
      `the MCP server's capabilities.experimental["${declarationCapabilityKey}"] is not {service_evidence: "0.1", server_kid}: this Countersign cannot call it as service-aware`,
      { reason: "declaration_invalid" },
    );
  const declaredKid = d.data.server_kid;
  if (registeredKid === null)
    throw new ServiceError(
      "UPSTREAM_IDENTITY_UNKNOWN",
      "the MCP server declares that it is service-aware, and no identity is registered for it: register its identity document (server_identity) first",
      { declared_kid: declaredKid, registered_kid: null },
    );
  if (declaredKid !== registeredKid)
    throw new ServiceError(
      "UPSTREAM_IDENTITY_UNKNOWN",
      "the MCP server declares that it signs with another KID than its registered identity: register the identity it signs with",
      { declared_kid: declaredKid, registered_kid: registeredKid },
    );
  const stored = serverIdentityOf(await storedIdentityLogs(db, [registeredKid]));
  if (!stored.ok)
    throw new ServiceError(
      stored.code === "UPSTREAM_IDENTITY_TOO_LARGE"
        ? "UPSTREAM_IDENTITY_TOO_LARGE"
        : "UPSTREAM_IDENTITY_UNKNOWN",
      stored.detail,
      { declared_kid: declaredKid, registered_kid: registeredKid },
    );
}
