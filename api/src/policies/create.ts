import { ServiceError } from "@countersign/protocol/errors";
import type { LintResult } from "@countersign/protocol/policy";
import type { Policy, PolicyVersion } from "@countersign/protocol/wire";
import type { Plan } from "@countersign/core/plans";
import { inTransaction, type Pool } from "@countersign/core/store";
import { audit, type Actor } from "../audit/record.js";
import { isUniqueViolation } from "../http/shared.js";
import { checkQuota } from "../orgs/quota.js";
import { insertPolicy, lockAndCountPolicies, policyJson, versionJson } from "./store.js";
import { insertVersion, validDocument } from "./versions.js";

/**
 * Creates a policy (SPEC 2.4), with version 1 as a draft when a document is
 * given; counts against the plan (SPEC 8.6, the organization locked so the
 * count is exact). A taken name is 409 NAME_TAKEN and writes nothing.
 */
export async function createPolicy(
  pool: Pool,
  q: {
    organization: { id: string; plan: Plan };
    name: string;
    document?: Record<string, unknown>;
    note?: string;
    disclosure?: string;
    origin: "document" | "template";
    actor: Actor;
  },
): Promise<{ policy: Policy; version: PolicyVersion | null; lint: LintResult | null }> {
  const o = q.organization;
  const doc = q.document ? validDocument(q.document) : undefined;
  try {
    return await inTransaction(pool, async (db) => {
      checkQuota(o.plan, "policies", await lockAndCountPolicies(db, o.id));
      const policy = await insertPolicy(db, o.id, q.name, q.disclosure ?? "inherit");
      const version = doc
        ? await insertVersion(db, {
            organizationId: o.id,
            policyId: policy.id,
            ...doc,
            note: q.note ?? null,
            origin: q.origin,
            createdBy: q.actor.label,
          })
        : null;
      await audit(db, {
        organizationId: o.id,
        action: "policy.created",
        actor: q.actor,
        target: { type: "policy", id: policy.id },
        details: { name: q.name, version_id: version?.id ?? null },
      });
      return {
        policy: policyJson(policy),
        version: version ? versionJson(version, true) : null,
        lint: doc?.lint ?? null,
      };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new ServiceError("NAME_TAKEN", "a policy with this name exists");
    throw err;
  }
}
