import { actionStatuses, type ActionStatus } from "@countersign/protocol/wire";

export { actionStatuses, type ActionStatus };

/** What a new decision records (the other six states only follow from one of these). */
export type DecidedStatus = Extract<ActionStatus, "denied" | "pending_approval" | "approved" | "authorized">;

/** Statuses an admin may cancel: decided but not yet executing (SPEC 3.1 open states). */
export const CANCELLABLE_STATUSES = [
  "pending_approval",
  "approved",
] as const satisfies readonly ActionStatus[];

/**
 * Statuses whose action may still change because a person decides or the Gateway runs it:
 * retention keeps their evidence and events whatever their age (SPEC 8.7).
 */
export const OPEN_STATUSES = [
  "pending_approval",
  "approved",
  "executing",
] as const satisfies readonly ActionStatus[];
