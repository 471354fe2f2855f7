import { denyDestructiveActions } from "./deny-destructive.js";
import { readOnlyAgent } from "./read-only-agent.js";
import { spendLimitWithApproval } from "./spend-limit.js";
import type { PolicyTemplate } from "./types.js";

export type { PolicyTemplate } from "./types.js";

/** Templates in the order GET policy-templates lists them; frozen so no caller edits the shared data. */
export const policyTemplates: readonly PolicyTemplate[] = Object.freeze(
  [readOnlyAgent, spendLimitWithApproval, denyDestructiveActions].map((t) => deepFreeze(structuredClone(t))),
);

/** A fresh, editable copy of a template, or undefined (TEMPLATE_NOT_FOUND). */
export function policyTemplate(id: string): PolicyTemplate | undefined {
  const t = policyTemplates.find((x) => x.id === id);
  return t ? structuredClone(t) : undefined;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
