import type { WebhookDelivery, WebhookEndpoint } from "@countersign/protocol/wire";

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

export const ENDPOINT_COLUMNS = `id, url, description, enabled, event_types, created_by, disabled_reason, previous_secret_until, created_at, updated_at`;

/** The endpoint record (SPEC 2.10): the secret is only ever in the create and rotate answers. */
export function endpointJson(e: EndpointRow, now: Date): WebhookEndpoint {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    enabled: e.enabled,
    event_types: e.event_types,
    created_by: e.created_by,
    disabled_reason: e.disabled_reason,
    // Until then deliveries carry two signatures (SPEC 6.3).
    previous_secret_expires_at:
      e.previous_secret_until && e.previous_secret_until > now ? e.previous_secret_until.toISOString() : null,
    created_at: e.created_at.toISOString(),
    updated_at: e.updated_at.toISOString(),
  };
}

export interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  event_created_at: Date;
  state: "pending" | "delivered" | "failed";
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

export const DELIVERY_SELECT = `
  select d.id, d.event_id, v.type as event_type, v.created_at as event_created_at, d.state, d.next_attempt_at,
         d.created_at, d.delivered_at, d.failed_at,
         coalesce((select json_agg(json_build_object('number', a.number, 'started_at', a.started_at, 'finished_at', a.finished_at,
                     'duration_ms', a.duration_ms, 'status_code', a.status_code, 'error', a.error) order by a.number)
                     from webhook_attempts a where a.delivery_id = d.id), '[]') as attempts
    from webhook_deliveries d join events v on v.id = d.event_id`;

const iso = (d: Date | null) => d?.toISOString() ?? null;
const isoText = (t: string | null) => (t ? new Date(t).toISOString() : null);

/** A delivery with its log: every attempt with time, status or error, and duration (SPEC 6.4). */
export function deliveryJson(d: DeliveryRow): WebhookDelivery {
  return {
    id: d.id,
    event_id: d.event_id,
    event_type: d.event_type,
    event_created_at: d.event_created_at.toISOString(),
    state: d.state,
    next_attempt_at: d.state === "pending" ? d.next_attempt_at.toISOString() : null,
    created_at: d.created_at.toISOString(),
    delivered_at: iso(d.delivered_at),
    failed_at: iso(d.failed_at),
    attempts: d.attempts.map((a) => ({
      number: a.number,
      started_at: isoText(a.started_at),
      finished_at: isoText(a.finished_at),
      duration_ms: a.duration_ms,
      status_code: a.status_code,
      error: a.error,
    })),
  };
}
