import type { ActionCondition } from "../document/schema.js";
import { compileTextPredicate, type TextPredicate } from "./text.js";

/**
 * Conditions on the tool's action name. They depend only on (tool, action),
 * so the evaluator caches which rules pass them per tool and action.
 */
export function compileActionCondition(c: ActionCondition): TextPredicate {
  return compileTextPredicate(c.op, c.op === "matches" ? c.pattern : c.value);
}
