// Observe windows of agents (SPEC 3.9; api/src/routes/observe): one open window per agent, never
// extended; started by an admin (the operator when bound as admin), ended by the end call or expiry.
import {
  agentAnswerSchema,
  agentObserveSchema,
  observeWindowAnswerSchema,
  type AgentObserve,
  type ObserveStart,
  type ObserveWindow,
} from "@countersign/protocol/wire";
import type { CloudApiClient } from "./client.js";

export type { ObserveWindow };

export function observeWindows(client: CloudApiClient) {
  const agent = (org: string, agentId: string) =>
    `/orgs/${encodeURIComponent(org)}/agents/${encodeURIComponent(agentId)}`;
  return {
    /** The agent's name, which a start must repeat as its confirmation. */
    async agentName(org: string, agentId: string): Promise<string> {
      return (await client.get(agent(org, agentId), agentAnswerSchema)).agent.name;
    },
    /** The open window (if any) and the latest windows of the agent. */
    of(org: string, agentId: string): Promise<AgentObserve> {
      return client.get(`${agent(org, agentId)}/observe`, agentObserveSchema);
    },
    /** 409 OBSERVE_ACTIVE when the agent has an open window already (it is never extended). */
    async start(org: string, agentId: string, body: ObserveStart): Promise<ObserveWindow> {
      return (await client.post(`${agent(org, agentId)}/observe`, observeWindowAnswerSchema, body))
        .observe_window;
    },
    /** 404 NO_OPEN_WINDOW when nothing is open. */
    async end(org: string, agentId: string): Promise<ObserveWindow> {
      return (await client.post(`${agent(org, agentId)}/observe/end`, observeWindowAnswerSchema))
        .observe_window;
    },
  };
}
