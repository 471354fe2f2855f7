// metav1.Condition bookkeeping: one entry per type; lastTransitionTime moves only when the
// status changes, so `kubectl describe` tells how long something has been true or false.
import type { Condition } from "../crds/fields.js";

export type ConditionStatus = Condition["status"];

export interface ConditionInput {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
}

/** Condition messages are for people: bounded, and never carrying a secret (callers' duty). */
const MAX_MESSAGE = 32_768;

export function setCondition(
  conditions: readonly Condition[] | undefined,
  input: ConditionInput,
  observedGeneration: number,
  now: Date,
): Condition[] {
  const list = [...(conditions ?? [])];
  const index = list.findIndex((c) => c.type === input.type);
  const previous = index >= 0 ? list[index] : undefined;
  const next: Condition = {
    type: input.type,
    status: input.status,
    reason: input.reason,
    message:
      input.message.length > MAX_MESSAGE ? `${input.message.slice(0, MAX_MESSAGE - 1)}…` : input.message,
    observedGeneration,
    lastTransitionTime:
      previous && previous.status === input.status ? previous.lastTransitionTime : formatTime(now),
  };
  if (index >= 0) list[index] = next;
  else list.push(next);
  return list;
}

export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === "True";
}

/** RFC 3339 to the second, as Kubernetes writes metav1.Time. */
export function formatTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}
