import { z } from "zod";
import {
  agentObserveSchema,
  observeEndedAllSchema,
  observeReportAnswerSchema,
  observeStartSchema,
  observeWindowAnswerSchema,
  observeWindowListSchema,
} from "@countersign/protocol/wire";
import { pageQuery } from "../http/shared.js";

export { orgParams } from "../http/shared.js";

/** Requests and answers of the observe routes; the window record is the protocol's. */
export const agentParams = z.strictObject({ org_id: z.uuid(), agent_id: z.uuid() });
export const windowParams = z.strictObject({ org_id: z.uuid(), window_id: z.uuid() });
export const noQuery = z.strictObject({});
export const listQuery = z.strictObject({
  ...pageQuery,
  state: z.enum(["open", "ended"]).optional(),
  agent_id: z.uuid().optional(),
});
export const startBody = observeStartSchema;

export const windowAnswer = observeWindowAnswerSchema;
export const windowPage = observeWindowListSchema;
export const agentWindows = agentObserveSchema;
export const endedAll = observeEndedAllSchema;
export const reportAnswer = observeReportAnswerSchema;
