import { z } from "zod";
import { pageSchema } from "./pages.js";

export const observeEndReasons = ["ended", "expired", "settings_changed"] as const;

/** An observe window: `{observe_window}` of the start, end and read routes, items of the lists. */
export const observeWindowSchema = z.strictObject({
  id: z.uuid(),
  agent: z.strictObject({ id: z.uuid(), name: z.string() }),
  policy_id: z.uuid().nullable(),
  state: z.enum(["open", "ended"]),
  hours: z.number().int(),
  live: z.boolean(),
  reason: z.string().nullable(),
  started_by: z.uuid().nullable(),
  started_at: z.string(),
  ends_at: z.string(),
  ended_at: z.string().nullable(),
  ended_by: z.uuid().nullable(),
  end_reason: z.enum(observeEndReasons).nullable(),
});
export type ObserveWindow = z.infer<typeof observeWindowSchema>;

export const observeWindowAnswerSchema = z.strictObject({ observe_window: observeWindowSchema });

/** GET .../agents/<id>/observe: the open window, if any, and the agent's latest windows. */
export const agentObserveSchema = z.strictObject({
  open: observeWindowSchema.nullable(),
  items: z.array(observeWindowSchema),
});

export type AgentObserve = z.infer<typeof agentObserveSchema>;

/** POST .../agents/<id>/observe. */
export const observeStartSchema = z.strictObject({
  hours: z.number().int().min(1).max(168),
  live: z.boolean().default(false),
  /** The agent's name typed again: starting a window relaxes enforcement for that agent. */
  confirmation: z.string().max(200),
  reason: z.string().max(500).optional(),
});

export type ObserveStart = z.input<typeof observeStartSchema>;

/** `{report}` of GET .../observe-windows/<id>/report: counts over every call, the newest relaxed calls listed. */
export const observeReportSchema = z.strictObject({
  observe_window: observeWindowSchema,
  decisions: z.number().int(),
  relaxed: z.number().int(),
  by_policy_effect: z.record(z.string(), z.number().int()),
  by_status: z.record(z.string(), z.number().int()),
  relaxed_calls: z.array(
    z.strictObject({
      protected_action_id: z.uuid(),
      tool: z.string(),
      action: z.string(),
      environment: z.string(),
      status: z.string(),
      policy_effect: z.string().nullable(),
      rule_id: z.string().nullable(),
      decision_code: z.string().nullable(),
      created_at: z.string(),
    }),
  ),
  relaxed_calls_truncated: z.boolean(),
});

export type ObserveReport = z.infer<typeof observeReportSchema>;

/** POST .../observe/end-all: the windows it ended. */
export const observeEndedAllSchema = z.strictObject({ ended: z.array(observeWindowSchema) });
/** GET .../observe-windows/<window_id>/report. */
export const observeReportAnswerSchema = z.strictObject({ report: observeReportSchema });

/** GET .../observe-windows: a page of windows. */
export const observeWindowListSchema = pageSchema(observeWindowSchema);
