import { z } from "zod";
import {
  observeReportSchema,
  agentObserveSchema,
  observeWindowAnswerSchema,
  observeWindowSchema,
  pageSchema,
} from "@countersign/protocol/wire";
import { pageQuery } from "../http/shared.js";

/** Requests and answers of the observe routes; the window record is the protocol's. */
export const orgParams = z.strictObject({ org_id: z.uuid() });
export const agentParams = z.strictObject({ org_id: z.uuid(), agent_id: z.uuid() });
export const windowParams = z.strictObject({ org_id: z.uuid(), window_id: z.uuid() });
export const noQuery = z.strictObject({});
export const listQuery = z.strictObject({
  ...pageQuery,
  state: z.enum(["open", "ended"]).optional(),
  agent_id: z.uuid().optional(),
});
export const startBody = z.strictObject({
  hours: z.number().int().min(1).max(168),
  live: z.boolean().default(false),
  /** The agent's name typed again: starting a window relaxes enforcement for that agent. */
  confirmation: z.string().max(200),
  reason: z.string().max(500).optional(),
});

export const windowAnswer = observeWindowAnswerSchema;
export const windowPage = pageSchema(observeWindowSchema);
export const agentWindows = agentObserveSchema;
export const endedAll = z.strictObject({ ended: z.array(observeWindowSchema) });
export const reportAnswer = z.strictObject({ report: observeReportSchema });
