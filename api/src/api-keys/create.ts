import { ServiceError } from "@countersign/protocol/errors";
import { insertApiKey } from "@countersign/core/keys";
import type { Plan } from "@countersign/core/plans";
import { inTransaction, type Pool } from "@countersign/core/store";
import type { z } from "zod";
import type { apiKeyCreateSchema } from "@countersign/protocol/wire";
import { audit, type Actor } from "../audit/record.js";
import { checkQuota } from "../orgs/quota.js";
import { lockOrganization } from "../orgs/store.js";
import { agentExists, liveKeyCount, readKey, setKeyCreatedFor, type KeyRow } from "./store.js";

/**
 * Create an API key (SPEC 5.2): the plan's key limit is exact because creations of one organization
 * are serialized; audited as `api_key.created` with its name, kind and prefix, never the secret.
 * The secret is returned once, for the answer, and exists nowhere else afterwards.
 */
export async function createApiKey(
  pool: Pool,
  keyHashSecret: Buffer,
  q: {
    organizationId: string;
    plan: Plan;
    body: z.infer<typeof apiKeyCreateSchema>;
    expiresAt: Date | undefined;
    createdFor: string | undefined;
    /** The creating person; null for an operator (its keys belong to the installation's binding). */
    createdBy: string | null;
    actor: Actor;
  },
): Promise<{ row: KeyRow; secret: string }> {
  const b = q.body;
  return inTransaction(pool, async (db) => {
    await lockOrganization(db, q.organizationId);
    if (b.kind === "gateway" && !(await agentExists(db, q.organizationId, b.agent_id)))
      throw new ServiceError("INVALID_INPUT", "agent_id names no agent of this organization", {
        issues: [{ path: "agent_id", code: "not_found", message: "no such agent" }],
      });
    checkQuota(q.plan, "apiKeys", await liveKeyCount(db, q.organizationId));
    const k = await insertApiKey(db, keyHashSecret, {
      organizationId: q.organizationId,
      kind: b.kind,
      environment: b.environment,
      name: b.name,
      agentId: b.kind === "gateway" ? b.agent_id : undefined,
      scopes: b.kind === "management" ? b.scopes : [],
      createdBy: q.createdBy,
      expiresAt: q.expiresAt,
    });
    if (q.createdFor) await setKeyCreatedFor(db, k.id, q.createdFor);
    await audit(db, {
      organizationId: q.organizationId,
      action: "api_key.created",
      actor: q.actor,
      target: { type: "api_key", id: k.id },
      details: {
        name: b.name,
        kind: b.kind,
        environment: b.environment,
        prefix: k.prefix,
        ...(b.kind === "management" ? { scopes: b.scopes } : { agent_id: b.agent_id }),
      },
    });
    return { row: await readKey(db, k.id), secret: k.key };
  });
}
