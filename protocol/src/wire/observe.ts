import { z } from "zod";

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
