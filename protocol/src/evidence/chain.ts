import type { StepType } from "./signed-object.js";

/**
 * The workflow (`workflowId`, receipt-payload.ts) as a graph: which step may follow
 * which. A TASK starts every thread; a CANCELLATION follows the TASK directly
 * (a cancellation receipt covers TASK → CANCELLATION only, SPEC 2.8).
 */
export const allowedParents: Record<StepType, readonly StepType[]> = {
  TASK: [],
  PROPOSAL: ["TASK"],
  APPROVAL: ["PROPOSAL"],
  REJECTION: ["PROPOSAL"],
  CANCELLATION: ["TASK"],
  EXECUTION: ["PROPOSAL", "APPROVAL"],
  RESULT: ["EXECUTION"],
};

export const mayFollow = (step: StepType, parent: StepType | null): boolean =>
  parent === null ? step === "TASK" : allowedParents[step].includes(parent);
