import type { webhookEndpointPatchSchema } from "@countersign/protocol/wire";
import type { z } from "zod";
import { inTransaction } from "@countersign/core/store";
import { newSigningSecret, PREVIOUS_SECRET_MS } from "@countersign/core/webhooks";
import { audit, type Actor } from "../audit/record.js";
import type { ApiContext } from "../context.js";
import { sealSecret } from "./endpoint-secrets.js";
import { endpointNotFound, readEndpoint, updateEndpoint, type EndpointRow } from "./endpoint-store.js";
import { webhookOptionsOf } from "./options.js";
import { requirePublicUrl } from "./url-check.js";

/**
 * Changes a webhook endpoint (SPEC 3.7, PATCH .../webhooks/<id>). A new URL
 * must be public; `rotate_secret` makes a new signing secret, returned once,
 * while the previous one keeps signing for PREVIOUS_SECRET_MS. The audit entry
 * names the members changed, never a secret.
 */
export async function changeEndpoint(
  ctx: ApiContext,
  q: {
    organizationId: string;
    endpointId: string;
    body: z.output<typeof webhookEndpointPatchSchema>;
    actor: Actor;
    now: Date;
  },
): Promise<{ endpoint: EndpointRow; secret?: string }> {
  const w = webhookOptionsOf(ctx);
  const b = q.body;
  const id = q.endpointId;
  if (!(await readEndpoint(ctx.pool, q.organizationId, id))) throw endpointNotFound();
  if (b.url !== undefined) await requirePublicUrl(b.url, w);
  const secret = b.rotate_secret ? newSigningSecret() : undefined;
  const endpoint = await inTransaction(ctx.pool, async (db) => {
    const e = await readEndpoint(db, q.organizationId, id, true);
    if (!e) throw endpointNotFound();
    const updated = await updateEndpoint(db, id, {
      url: b.url ?? e.url,
      description: b.description ?? e.description,
      enabled: b.enabled ?? e.enabled,
      eventTypes: b.event_types ?? e.event_types,
      enabledChosen: b.enabled !== undefined,
      sealedSecret: secret ? sealSecret(w.credentialKey, id, secret) : null,
      previousUntil: new Date(q.now.getTime() + PREVIOUS_SECRET_MS),
    });
    const changed = Object.fromEntries(
      (["url", "description", "enabled", "event_types"] as const)
        .filter((k) => b[k] !== undefined)
        .map((k) => [k, b[k]]),
    );
    await audit(db, {
      organizationId: q.organizationId,
      action: "webhook.updated",
      actor: q.actor,
      target: { type: "webhook", id },
      details: { ...changed, ...(secret ? { secret_rotated: true } : {}) },
    });
    return updated;
  });
  return secret ? { endpoint, secret } : { endpoint };
}
