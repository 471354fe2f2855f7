import { z } from "zod";
import { digestSchema, kidSchema, objectIdSchema } from "./fields.js";
import type { SignedObject, StepBody, StepType } from "./signed-object.js";

/**
 * The receipt summary (SPEC 2.8): derived from the signed steps only, never
 * copied from anything the issuer says, so a verifier recomputes it and
 * compares. Per step: `<verb>_by` the signer's KID, `<noun>` the step's object
 * id, `<verb>_on_behalf_of` the KID it acted for (left out when the step acts
 * for no one). EXECUTION and RESULT share `executed_by` and
 * `executed_on_behalf_of`; the later step (RESULT) wins.
 */
export const summaryKeys = {
  TASK: ["requested_by", "request", "requested_on_behalf_of"],
  PROPOSAL: ["proposed_by", "proposal", "proposed_on_behalf_of"],
  APPROVAL: ["approved_by", "approval", "approved_on_behalf_of"],
  REJECTION: ["rejected_by", "rejection", "rejected_on_behalf_of"],
  CANCELLATION: ["cancelled_by", "cancellation", "cancelled_on_behalf_of"],
  EXECUTION: ["executed_by", "execution", "executed_on_behalf_of"],
  RESULT: ["executed_by", "result", "executed_on_behalf_of"],
} as const satisfies Record<StepType, readonly [string, string, string]>;

const summaryStepSchema = z.strictObject({
  type: z.enum(["TASK", "PROPOSAL", "APPROVAL", "REJECTION", "CANCELLATION", "EXECUTION", "RESULT"]),
  id: objectIdSchema,
  actor: kidSchema,
  on_behalf_of: kidSchema.optional(),
  delegations: z.array(objectIdSchema).min(1).optional(),
});

const kidKey = kidSchema.optional();
const idKey = objectIdSchema.optional();
export const summarySchema = z.strictObject({
  requested_by: kidKey,
  request: idKey,
  requested_on_behalf_of: kidKey,
  proposed_by: kidKey,
  proposal: idKey,
  proposed_on_behalf_of: kidKey,
  approved_by: kidKey,
  approval: idKey,
  approved_on_behalf_of: kidKey,
  rejected_by: kidKey,
  rejection: idKey,
  rejected_on_behalf_of: kidKey,
  cancelled_by: kidKey,
  cancellation: idKey,
  cancelled_on_behalf_of: kidKey,
  executed_by: kidKey,
  execution: idKey,
  executed_on_behalf_of: kidKey,
  result: idKey,
  result_status: z.enum(["succeeded", "failed"]).optional(),
  result_digest: digestSchema.optional(),
  steps: z.array(summaryStepSchema).min(1),
});
export type Summary = z.infer<typeof summarySchema>;
export type SummaryStep = z.infer<typeof summaryStepSchema>;

/** The summary of a path TASK → head, in path order. */
export function deriveSummary(path: readonly SignedObject<StepBody>[]): Summary {
  const summary: Record<string, unknown> = {};
  const steps: SummaryStep[] = [];
  for (const { id, body } of path) {
    const [by, noun, behalf] = summaryKeys[body.type];
    summary[by] = body.actor;
    summary[noun] = id;
    if (body.on_behalf_of !== null) summary[behalf] = body.on_behalf_of;
    else delete summary[behalf];
    if (body.type === "RESULT") {
      summary.result_status = body.payload.status;
      summary.result_digest = body.payload.result_digest;
    }
    steps.push({
      type: body.type,
      id,
      actor: body.actor,
      ...(body.on_behalf_of !== null ? { on_behalf_of: body.on_behalf_of } : {}),
      ...(body.delegations.length > 0 ? { delegations: [...body.delegations] } : {}),
    });
  }
  return { ...(summary as Omit<Summary, "steps">), steps };
}
