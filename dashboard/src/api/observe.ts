/** Observe windows (SPEC 3.9) through the one client. */
import type { AgentObserve, ObserveReport, ObserveStart, ObserveWindow } from "@countersign/protocol/wire";
import type { Page } from "./types.js";
import { api } from "./client.js";

const base = (orgId: string) => `/orgs/${orgId}`;

export const observeApi = {
  /** The agent's open window and its 20 most recent. */
  ofAgent: (orgId: string, agentId: string) =>
    api.get<AgentObserve>(`${base(orgId)}/agents/${agentId}/observe`),
  list: (orgId: string, state?: "open" | "ended") =>
    api.get<Page<ObserveWindow>>(`${base(orgId)}/observe-windows?limit=100${state ? `&state=${state}` : ""}`),
  start: (orgId: string, agentId: string, body: ObserveStart) =>
    api
      .post<{ observe_window: ObserveWindow }>(`${base(orgId)}/agents/${agentId}/observe`, body)
      .then((r) => r.observe_window),
  end: (orgId: string, agentId: string) =>
    api
      .post<{ observe_window: ObserveWindow }>(`${base(orgId)}/agents/${agentId}/observe/end`)
      .then((r) => r.observe_window),
  endAll: (orgId: string) => api.post<{ ended: ObserveWindow[] }>(`${base(orgId)}/observe/end-all`),
  report: (orgId: string, windowId: string) =>
    api
      .get<{ report: ObserveReport }>(`${base(orgId)}/observe-windows/${windowId}/report`)
      .then((r) => r.report),
};
