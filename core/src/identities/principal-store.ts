import type { IdentityDocument } from "@countersign/protocol/evidence";
import type { Queryable } from "../store/queryable.js";

/** The principal a replacement retires. */
export async function retireIdentity(db: Queryable, kid: string): Promise<void> {
  await db.query("update identities set status = 'replaced', retired_at = now() where kid = $1", [kid]);
}

/** Equivocated for good, with the log that proves it (its documents and the conflicting one). */
export async function markEquivocated(
  db: Queryable,
  kid: string,
  documents: IdentityDocument[],
): Promise<void> {
  await db.query(
    "update identities set status = 'equivocated', retired_at = coalesce(retired_at, now()), document = $2 where kid = $1",
    [kid, JSON.stringify(documents)],
  );
}

/** The identity's log as accepted; `revoked` closes it. */
export async function saveLog(
  db: Queryable,
  kid: string,
  documents: IdentityDocument[],
  status: "revoked" | null,
): Promise<void> {
  await db.query(
    `update identities set document = $2, status = coalesce($3, status), retired_at = case when $3::text is null then retired_at else now() end where kid = $1`,
    [kid, JSON.stringify(documents), status],
  );
}

/** A new principal of the organization, its log the one genesis document. */
export async function insertPrincipalRow(
  db: Queryable,
  organizationId: string,
  doc: IdentityDocument,
): Promise<void> {
  await db.query(
    "insert into identities (kid, kind, organization_id, public_key, document) values ($1, 'principal', $2, $3, $4)",
    [doc.body.kid, organizationId, doc.body.public_key, JSON.stringify([doc])],
  );
}
