import { z } from "zod";
import { pageSchema } from "./pages.js";
import { delegationBodySchema, revocationBodySchema, signedObjectSchema } from "../evidence/index.js";

export const delegationStates = ["active", "expired", "revoked"] as const;

/**
 * A delegation as the Cloud API answers it: the signed DELEGATION (and REVOCATION) as submitted,
 * with what was read from them and the state at the time of the answer.
 */
export const delegationSchema = z.strictObject({
  id: z.uuid(),
  agent_id: z.uuid(),
  object_id: z.string(),
  permissions: z.array(z.string()),
  expires_at: z.string(),
  state: z.enum(delegationStates),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
  object: signedObjectSchema.extend({ body: delegationBodySchema }),
  revocation: signedObjectSchema.extend({ body: revocationBodySchema }).nullable(),
});
export type Delegation = z.infer<typeof delegationSchema>;

/** POST .../agents/<id>/delegations: a DELEGATION signed by the organization principal (verified by the route). */
export const delegationSubmissionSchema = z.strictObject({ delegation: z.record(z.string(), z.unknown()) });

/** POST .../delegations/<id>/revoke: a REVOCATION signed by the delegation's principal. */
export const revocationSubmissionSchema = z.strictObject({ revocation: z.record(z.string(), z.unknown()) });

/** The answer of those two and of nothing else: `{delegation}`. */
export const delegationAnswerSchema = z.strictObject({ delegation: delegationSchema });

/** GET .../agents/<id>/delegations: a page of delegations. */
export const delegationListSchema = pageSchema(delegationSchema);
