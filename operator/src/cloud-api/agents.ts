// Agents and their delegations (SPEC 2.2, 2.5, 4.4). Delegations arrive signed by the organization
// principal; the Cloud API verifies and stores them, and a REVOCATION signed by the same principal
// revokes one.
import type { Agent, AgentInput, AgentPatch, Delegation } from "@countersign/protocol/wire";
import type { CloudApiClient } from "./client.js";
import { allPages } from "./pages.js";

export type { Agent, AgentInput, Delegation };

export function agents(client: CloudApiClient) {
  const org = (o: string) => `/orgs/${encodeURIComponent(o)}`;
  const one = (o: string, id: string) => `${org(o)}/agents/${encodeURIComponent(id)}`;
  return {
    async get(o: string, id: string): Promise<Agent> {
      return (await client.get<{ agent: Agent }>(one(o, id))).agent;
    },
    /** Agent names are unique in an organization: used to adopt an agent whose id was lost. */
    async findByName(o: string, name: string): Promise<Agent | undefined> {
      return (await allPages<Agent>(client, `${org(o)}/agents`)).find((a) => a.name === name);
    },
    async create(o: string, input: AgentInput): Promise<Agent> {
      return (await client.post<{ agent: Agent }>(`${org(o)}/agents`, input)).agent;
    },
    async update(o: string, id: string, update: AgentPatch): Promise<Agent> {
      return (await client.patch<{ agent: Agent }>(one(o, id), update)).agent;
    },
    delegations(o: string, id: string): Promise<Delegation[]> {
      return allPages<Delegation>(client, `${one(o, id)}/delegations`);
    },
    async delegate(o: string, id: string, delegation: unknown): Promise<Delegation> {
      return (await client.post<{ delegation: Delegation }>(`${one(o, id)}/delegations`, { delegation }))
        .delegation;
    },
    async revokeDelegation(o: string, delegationId: string, revocation: unknown): Promise<Delegation> {
      return (
        await client.post<{ delegation: Delegation }>(
          `${org(o)}/delegations/${encodeURIComponent(delegationId)}/revoke`,
          { revocation },
        )
      ).delegation;
    },
  };
}
