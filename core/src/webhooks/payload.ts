/** An outbox row (table `events`) as the worker reads it. */
export interface EventRow {
  id: string;
  type: string;
  organization_id: string;
  data: unknown;
  created_at: Date;
}

/**
 * The delivery body of SPEC 6.2. Built from the stored event alone, so every
 * endpoint and every attempt gets exactly the same bytes.
 */
export function deliveryBody(e: EventRow): string {
  return JSON.stringify({
    id: e.id,
    type: e.type,
    created_at: e.created_at.toISOString(),
    organization_id: e.organization_id,
    data: e.data,
  });
}
