import { ServiceError } from "@countersign/protocol/errors";
import { verifyIdentityDocument } from "@countersign/protocol/evidence";
import type { Queryable } from "@countersign/core/store";
import { identityOwner, insertServerIdentity } from "./store.js";

/** A valid first document of this MCP server's identity (actor type mcp_server, subject this server), or why not. */
export function checkServerIdentityDocument(orgId: string, serverId: string, document: unknown) {
  const v = verifyIdentityDocument(document);
  if (!v.ok) throw new ServiceError("IDENTITY_INVALID", v.message);
  const d = v.document;
  if (d.body.actor_type !== "mcp_server")
    throw new ServiceError(
      "IDENTITY_WRONG_ACTOR_TYPE",
      `an MCP server identity has actor_type mcp_server, not ${d.body.actor_type}`,
    );
  if (d.body.subject.organization_id !== orgId || d.body.subject.id !== serverId)
    throw new ServiceError("IDENTITY_INVALID", "the document's subject is not this MCP server");
  if (d.body.seq !== 0 || d.body.status !== "active")
    throw new ServiceError(
      "IDENTITY_INVALID",
      "an MCP server identity is registered with its first document (seq 0, active)",
    );
  return d;
}

/** An MCP server's identity: stored with the other identities; answers its KID. */
export async function registerServerIdentity(
  db: Queryable,
  orgId: string,
  serverId: string,
  document: unknown,
): Promise<string> {
  const d = checkServerIdentityDocument(orgId, serverId, document);
  const owner = await identityOwner(db, d.body.kid);
  if (owner && (owner.kind !== "mcp_server" || owner.organization_id !== orgId))
    throw new ServiceError("IDENTITY_ALREADY_BOUND", "this key is already another identity");
  if (!owner) await insertServerIdentity(db, orgId, d);
  return d.body.kid;
}
