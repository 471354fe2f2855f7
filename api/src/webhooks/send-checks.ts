import { ServiceError } from "@countersign/protocol/errors";
import type { Queryable } from "@countersign/core/store";
import { enforceLimits } from "../rate-limits/counter.js";
import { lockEndpointState } from "./delivery-store.js";
import { endpointNotFound } from "./endpoint-store.js";

/** What a redelivery or a test event checks first, in its transaction. */

/** The endpoint, locked for the change; 404 when it is not this organization's. */
export async function lockEndpoint(db: Queryable, orgId: string, id: string): Promise<{ enabled: boolean }> {
  const endpoint = await lockEndpointState(db, orgId, id);
  if (!endpoint) throw endpointNotFound();
  return endpoint;
}

export function refuseDisabled(endpoint: { enabled: boolean }): void {
  if (!endpoint.enabled)
    throw new ServiceError("ENDPOINT_DISABLED", "the webhook endpoint is disabled; enable it first");
}

/** Redeliveries and test events share 5 per minute per endpoint; counted in the same transaction, so a refusal counts nothing. */
export const countSend = (db: Queryable, endpointId: string) =>
  enforceLimits(db, [{ name: "webhookSendsPerEndpoint", subject: endpointId }]);
