import { findEquivocations, type IdentityDocument } from "@countersign/protocol/evidence";
import type { Queryable } from "../store/queryable.js";

/**
 * Identities as the Cloud API stores them (docs/configuration-api.md,
 * "Identities"): one `identities` row per KID, whose `document` holds the
 * identity's whole log (an array, seq 0..n, plus any conflicting document
 * that proved an equivocation). The decision pipeline, the approval route
 * and the Cloud API read them through these functions.
 */
export interface StoredIdentity {
  kid: string;
  kind: "principal" | "personal";
  status: "active" | "replaced" | "revoked" | "equivocated";
  organizationId: string | null;
  userId: string | null;
  publicKey: string;
  documents: IdentityDocument[];
  createdAt: Date;
  retiredAt: Date | null;
}

const COLUMNS = "kid, kind, status, organization_id, user_id, public_key, document, created_at, retired_at";

interface Row {
  kid: string;
  kind: StoredIdentity["kind"];
  status: StoredIdentity["status"];
  organization_id: string | null;
  user_id: string | null;
  public_key: string;
  document: unknown;
  created_at: Date;
  retired_at: Date | null;
}

/** `document` holds the log as an array; a single document (the Gateway's) is a log of one. */
export const identityLogOf = (stored: unknown): IdentityDocument[] =>
  (Array.isArray(stored) ? stored : [stored]) as IdentityDocument[];

const fromRow = (r: Row): StoredIdentity => ({
  kid: r.kid,
  kind: r.kind,
  status: r.status,
  organizationId: r.organization_id,
  userId: r.user_id,
  publicKey: r.public_key,
  documents: identityLogOf(r.document),
  createdAt: r.created_at,
  retiredAt: r.retired_at,
});

export async function storedIdentity(
  db: Queryable,
  kid: string,
  lock = false,
): Promise<StoredIdentity | undefined> {
  const { rows } = await db.query<Row>(
    `select ${COLUMNS} from identities where kid = $1${lock ? " for update" : ""}`,
    [kid],
  );
  return rows[0] ? fromRow(rows[0]) : undefined;
}

/**
 * The organization's principal as the decision pipeline must see it: an
 * equivocated principal wins over an active one (it can never be used again
 * until an owner registers a replacement, which is then the newest).
 */
export async function principalOf(
  db: Queryable,
  organizationId: string,
): Promise<StoredIdentity | undefined> {
  const { rows } = await db.query<Row>(
    `select ${COLUMNS} from identities
      where organization_id = $1 and kind = 'principal' and status in ('active', 'equivocated')
      order by created_at desc, (status = 'equivocated') desc limit 1`,
    [organizationId],
  );
  return rows[0] ? fromRow(rows[0]) : undefined;
}

/** Whether a principal may sign now: active, its log unbroken and without conflict, and its last document active. */
export function isPrincipalValid(p: StoredIdentity | undefined): p is StoredIdentity {
  if (!p || p.status !== "active" || p.documents.length === 0) return false;
  if (findEquivocations(p.documents).length > 0) return false;
  return p.documents[p.documents.length - 1]!.body.status === "active";
}

/** Every principal of the organization, newest first (the GET route's history). */
export async function principalHistory(db: Queryable, organizationId: string): Promise<StoredIdentity[]> {
  const { rows } = await db.query<Row>(
    `select ${COLUMNS} from identities where organization_id = $1 and kind = 'principal' order by created_at desc`,
    [organizationId],
  );
  return rows.map(fromRow);
}

/** A person's identities, newest first; `activeOnly` gives those that may sign approvals. */
export async function personalIdentitiesOf(
  db: Queryable,
  userId: string,
  opts: { activeOnly?: boolean } = {},
): Promise<StoredIdentity[]> {
  const { rows } = await db.query<Row>(
    `select ${COLUMNS} from identities where user_id = $1 and kind = 'personal'${opts.activeOnly ? " and status = 'active'" : ""}
      order by created_at desc`,
    [userId],
  );
  return rows.map(fromRow);
}

/** The person a personal identity is bound to, while it is active. */
export async function personOfIdentity(db: Queryable, kid: string): Promise<string | undefined> {
  const { rows } = await db.query<{ user_id: string }>(
    "select user_id from identities where kid = $1 and kind = 'personal' and status = 'active' and user_id is not null",
    [kid],
  );
  return rows[0]?.user_id;
}

/** The Gateway identity's genesis document, unless a replica registered it first (gateway.ts). */
export async function insertGatewayIdentity(db: Queryable, document: IdentityDocument): Promise<void> {
  await db.query(
    `insert into identities (kid, kind, public_key, document) values ($1, 'gateway', $2, $3)
     on conflict (kid) do nothing`,
    [document.body.kid, document.body.public_key, JSON.stringify(document)],
  );
}

/** The stored document (or log) of a KID, as stored. */
export async function storedDocument(db: Queryable, kid: string): Promise<unknown> {
  const { rows } = await db.query<{ document: unknown }>("select document from identities where kid = $1", [
    kid,
  ]);
  return rows[0]?.document;
}
