import type { WebhookDelivery } from "@countersign/protocol/wire";
import type { DeliveryRow } from "./delivery-store.js";

const iso = (d: Date | null) => d?.toISOString() ?? null;
const isoText = (t: string | null) => (t ? new Date(t).toISOString() : null);

/** A delivery with its log: every attempt with time, status or error, and duration. */
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
