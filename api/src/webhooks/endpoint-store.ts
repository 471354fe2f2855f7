import { ServiceError } from "@countersign/protocol/errors";
import type { Queryable } from "@countersign/core/store";

/** An endpoint row as the routes read it; never the secrets. */
export interface EndpointRow {
  id: string;
  url: string;
  description: string;
  enabled: boolean;
  event_types: string[];
  created_by: string | null;
  disabled_reason: string | null;
  previous_secret_until: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, url, description, enabled, event_types, created_by, disabled_reason, previous_secret_until, created_at, updated_at`;

/** One page (limit + 1 rows) of the organization's endpoints, oldest first; optionally only those created for one resource. */
export async function listEndpoints(
  db: Queryable,
  orgId: string,
  after: [string, string] | undefined,
  limit: number,
  createdFor?: string,
): Promise<EndpointRow[]> {
  const { rows } = await db.query<EndpointRow>(
    `select ${COLUMNS} from webhook_endpoints where organization_id = $1
       and ($2::timestamptz is null or (created_at, id) > ($2::timestamptz, $3::uuid))
       and ($5::text is null or created_for = $5)
     order by created_at, id limit $4`,
    [orgId, after?.[0] ?? null, after?.[1] ?? null, limit + 1, createdFor ?? null],
  );
  return rows;
}

export async function endpointCount(db: Queryable, orgId: string): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    "select count(*) as n from webhook_endpoints where organization_id = $1",
    [orgId],
  );
  return Number(rows[0]!.n);
}

export async function insertEndpoint(
  db: Queryable,
  e: {
    id: string;
    orgId: string;
    url: string;
    description: string;
    enabled: boolean;
    eventTypes: string[];
    sealedSecret: Buffer;
    createdBy: string | null;
    createdFor?: string;
  },
): Promise<EndpointRow> {
  const { rows } = await db.query<EndpointRow>(
    `insert into webhook_endpoints (id, organization_id, url, description, enabled, event_types, secret_encrypted, created_by, created_for)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning ${COLUMNS}`,
    [
      e.id,
      e.orgId,
      e.url,
      e.description,
      e.enabled,
      e.eventTypes,
      e.sealedSecret,
      e.createdBy,
      e.createdFor ?? null,
    ],
  );
  return rows[0]!;
}

/** 404 for an endpoint that is not the organization's. */
export const endpointNotFound = () => new ServiceError("NOT_FOUND", "webhook endpoint not found");

/** The organization's endpoint, optionally locked for a change; undefined when it has none of that id. */
export async function readEndpoint(
  db: Queryable,
  orgId: string,
  id: string,
  lock = false,
): Promise<EndpointRow | undefined> {
  const { rows } = await db.query<EndpointRow>(
    `select ${COLUMNS} from webhook_endpoints where id = $1 and organization_id = $2${lock ? " for update" : ""}`,
    [id, orgId],
  );
  return rows[0];
}

export async function updateEndpoint(
  db: Queryable,
  id: string,
  e: {
    url: string;
    description: string;
    enabled: boolean;
    eventTypes: string[];
    /** A person set `enabled`: that choice replaces the reason the service disabled it for. */
    enabledChosen: boolean;
    /** A new sealed secret when rotating; the current one is then kept as previous until `previousUntil`. */
    sealedSecret: Buffer | null;
    previousUntil: Date;
  },
): Promise<EndpointRow> {
  const { rows } = await db.query<EndpointRow>(
    `update webhook_endpoints set url = $2, description = $3, enabled = $4, event_types = $5,
        disabled_reason = case when $6::boolean then null else disabled_reason end,
        secret_encrypted = coalesce($7, secret_encrypted),
        -- Only one previous secret is kept: a second rotation drops the older one at once.
        previous_secret_encrypted = case when $7::bytea is null then previous_secret_encrypted else secret_encrypted end,
        previous_secret_until = case when $7::bytea is null then previous_secret_until else $8::timestamptz end,
        updated_at = now()
      where id = $1 returning ${COLUMNS}`,
    [id, e.url, e.description, e.enabled, e.eventTypes, e.enabledChosen, e.sealedSecret, e.previousUntil],
  );
  return rows[0]!;
}

/**
 * Deletes the endpoint with its deliveries and their log (cascade); the
 * events stay. Its URL, or undefined when the organization has no such endpoint.
 */
export async function deleteEndpoint(db: Queryable, orgId: string, id: string): Promise<string | undefined> {
  const { rows } = await db.query<{ url: string }>(
    "delete from webhook_endpoints where id = $1 and organization_id = $2 returning url",
    [id, orgId],
  );
  return rows[0]?.url;
}
