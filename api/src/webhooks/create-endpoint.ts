import { randomUUID } from "node:crypto";
import type { webhookEndpointCreateSchema } from "@countersign/protocol/wire";
import type { z } from "zod";
import type { Plan } from "@countersign/core/plans";
import { inTransaction } from "@countersign/core/store";
import { newSigningSecret } from "@countersign/core/webhooks";
import { audit, type Actor } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { checkQuota } from "../orgs/quota.js";
import { lockOrganization } from "../orgs/store.js";
import { sealSecret } from "./endpoint-secrets.js";
import { endpointCount, insertEndpoint, type EndpointRow } from "./endpoint-store.js";
import { webhookOptionsOf } from "./options.js";
import { requirePublicUrl } from "./url-check.js";

/**
 * Creates a webhook endpoint (SPEC 3.7, 6.4): the URL must be public (checked
 * before anything is written), the signing secret is new, stored sealed and
 * returned once, by the caller, to the person who created it. Counts against
 * the plan (creations of one organization serialized so the limit is exact).
 */
export async function createEndpoint(
  ctx: ApiContext,
  q: {
    organization: { id: string; plan: Plan };
    body: z.output<typeof webhookEndpointCreateSchema>;
    createdFor: string | undefined;
    actor: Actor;
    userId: string | null;
  },
): Promise<{ endpoint: EndpointRow; secret: string }> {
  const o = q.organization;
  const w = webhookOptionsOf(ctx);
  const b = q.body;
  await requirePublicUrl(b.url, w);
  const id = randomUUID();
  const secret = newSigningSecret();
  const endpoint = await inTransaction(ctx.pool, async (db) => {
    await lockOrganization(db, o.id);
    checkQuota(o.plan, "webhookEndpoints", await endpointCount(db, o.id));
    const created = await insertEndpoint(db, {
      id,
      orgId: o.id,
      url: b.url,
      description: b.description,
      enabled: b.enabled,
      eventTypes: b.event_types,
      sealedSecret: sealSecret(w.credentialKey, id, secret),
      createdBy: q.userId,
      createdFor: q.createdFor,
    });
    await audit(db, {
      organizationId: o.id,
      action: "webhook.created",
      actor: q.actor,
      target: { type: "webhook", id },
      details: { url: b.url, enabled: b.enabled, event_types: b.event_types },
    });
    return created;
  });
  return { endpoint, secret };
}
