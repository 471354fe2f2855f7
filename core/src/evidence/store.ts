import type { IdentityDocument, SignedObject } from "@countersign/protocol/evidence";
import type { Queryable } from "../store/queryable.js";
import { statement } from "../store/statement.js";
import { identityLogOf } from "../identities/index.js";

const OBJECTS = statement(
  "stored_objects",
  "select object_id, object from signed_objects where object_id = any($1::text[])",
);
const IDENTITY_LOGS = statement(
  "stored_identity_logs",
  "select kid, document from identities where kid = any($1::text[])",
);

/** Signed objects of a thread as stored, by id (steps signed earlier: TASK, PROPOSAL, a person's APPROVAL...). */
export async function storedObjects(
  db: Queryable,
  ids: readonly string[],
): Promise<Map<string, SignedObject>> {
  const { rows } = await db.query<{ object_id: string; object: SignedObject }>(OBJECTS.with([ids]));
  return new Map(rows.map((r) => [r.object_id, r.object]));
}

/** The identity logs of signers a bundle relies on, in the order asked. */
export async function storedIdentityLogs(
  db: Queryable,
  kids: readonly string[],
): Promise<IdentityDocument[]> {
  const { rows } = await db.query<{ kid: string; document: unknown }>(IDENTITY_LOGS.with([kids]));
  const byKid = new Map(rows.map((r) => [r.kid, identityLogOf(r.document)]));
  return kids.flatMap((k) => byKid.get(k) ?? []);
}
