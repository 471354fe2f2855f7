import type { Queryable } from "@countersign/core/store";
import type { WebhookDelivery } from "@countersign/protocol/wire";

export interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  event_created_at: Date;
  state: WebhookDelivery["state"];
  next_attempt_at: Date;
  created_at: Date;
  delivered_at: Date | null;
  failed_at: Date | null;
  attempts: {
    number: number;
    started_at: string;
    finished_at: string | null;
    duration_ms: number | null;
    status_code: number | null;
    error: string | null;
  }[];
}

const SELECT = `
  select d.id, d.event_id, v.type as event_type, v.created_at as event_created_at, d.state, d.next_attempt_at,
         d.created_at, d.delivered_at, d.failed_at,
         coalesce((select json_agg(json_build_object('number', a.number, 'started_at', a.started_at, 'finished_at', a.finished_at,
                     'duration_ms', a.duration_ms, 'status_code', a.status_code, 'error', a.error) order by a.number)
                     from webhook_attempts a where a.delivery_id = d.id), '[]') as attempts
    from webhook_deliveries d join events v on v.id = d.event_id`;

/** One page (limit + 1 rows) of an endpoint's deliveries, newest first, optionally in one state. */
export async function listDeliveries(
  db: Queryable,
  endpointId: string,
  state: WebhookDelivery["state"] | null,
  after: [string, string] | undefined,
  limit: number,
): Promise<DeliveryRow[]> {
  const { rows } = await db.query<DeliveryRow>(
    `${SELECT}
      where d.endpoint_id = $1 and ($2::text is null or d.state = $2)
        and ($3::timestamptz is null or (d.created_at, d.id) < ($3::timestamptz, $4::uuid))
      order by d.created_at desc, d.id desc limit $5`,
    [endpointId, state, after?.[0] ?? null, after?.[1] ?? null, limit + 1],
  );
  return rows;
}

export async function readDelivery(db: Queryable, id: string): Promise<DeliveryRow> {
  const { rows } = await db.query<DeliveryRow>(`${SELECT} where d.id = $1`, [id]);
  return rows[0]!;
}

/** The endpoint's enabled flag, locked for the change; undefined when it is not this organization's. */
export async function lockEndpointState(
  db: Queryable,
  orgId: string,
  id: string,
): Promise<{ enabled: boolean } | undefined> {
  const { rows } = await db.query<{ enabled: boolean }>(
    "select enabled from webhook_endpoints where id = $1 and organization_id = $2 for update",
    [id, orgId],
  );
  return rows[0];
}

/** The delivery's state, locked; undefined when the endpoint has no such delivery. */
export async function lockDeliveryState(
  db: Queryable,
  endpointId: string,
  id: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ state: string }>(
    "select state from webhook_deliveries where id = $1 and endpoint_id = $2 for update",
    [id, endpointId],
  );
  return rows[0]?.state;
}

/** Same event, delivery id and body; a new round of attempts, the first one now. */
export async function restartDelivery(db: Queryable, id: string): Promise<void> {
  await db.query(
    "update webhook_deliveries set state = 'pending', round_attempts = 0, next_attempt_at = now(), failed_at = null, lease_token = null, lease_until = null where id = $1",
    [id],
  );
}

/** Records an event addressed to one endpoint only (the events trigger creates just its delivery); the delivery's id. */
export async function insertEndpointEvent(
  db: Queryable,
  orgId: string,
  endpointId: string,
  type: string,
  data: unknown,
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    "insert into events (organization_id, type, data, webhook_endpoint_id) values ($1, $2, $3, $4) returning id",
    [orgId, type, data, endpointId],
  );
  const { rows: d } = await db.query<{ id: string }>(
    "select id from webhook_deliveries where event_id = $1",
    [rows[0]!.id],
  );
  return d[0]!.id;
}
