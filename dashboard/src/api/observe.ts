/** Observe windows (SPEC 3.9). */
import {
  agentObserveSchema,
  observeEndedAllSchema,
  observeReportAnswerSchema,
  observeWindowAnswerSchema,
  observeWindowListSchema,
  type ObserveStart,
} from "@countersign/protocol/wire";
import { cloud } from "./cloud.js";
import { inOrg, seg } from "./paths.js";

const ofAgent = (orgId: string, agentId: string) => inOrg(orgId, `/agents/${seg(agentId)}/observe`);

export const observeKeys = {
  all: (orgId: string) => ["observe", orgId] as const,
  ofAgent: (orgId: string, agentId: string) => ["observe", orgId, agentId] as const,
  list: (orgId: string) => ["observe", orgId, "all"] as const,
};

export const observeApi = {
  /** The agent's open window and its 20 most recent. */
  ofAgent: (orgId: string, agentId: string) =>
    cloud.request("GET", ofAgent(orgId, agentId), agentObserveSchema),
  list: (orgId: string, state?: "open" | "ended") =>
    cloud.request("GET", inOrg(orgId, "/observe-windows"), observeWindowListSchema, {
      query: { limit: 100, state },
    }),
  start: (orgId: string, agentId: string, body: ObserveStart) =>
    cloud
      .request("POST", ofAgent(orgId, agentId), observeWindowAnswerSchema, { body })
      .then((r) => r.observe_window),
  end: (orgId: string, agentId: string) =>
    cloud
      .request("POST", `${ofAgent(orgId, agentId)}/end`, observeWindowAnswerSchema, { body: {} })
      .then((r) => r.observe_window),
  endAll: (orgId: string) =>
    cloud.request("POST", inOrg(orgId, "/observe/end-all"), observeEndedAllSchema, { body: {} }),
  report: (orgId: string, windowId: string) =>
    cloud
      .request("GET", inOrg(orgId, `/observe-windows/${seg(windowId)}/report`), observeReportAnswerSchema)
      .then((r) => r.report),
};
