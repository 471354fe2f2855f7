// Agents and their delegations (SPEC 2.2, 2.5, 4.4). Delegations arrive signed by the organization
// principal; the Cloud API verifies and stores them, and a REVOCATION signed by the same principal
// revokes one.
import {
  agentAnswerSchema,
  agentListSchema,
  delegationAnswerSchema,
  delegationListSchema,
  type Agent,
  type AgentInput,
  type AgentPatch,
  type Delegation,
} from "@countersign/protocol/wire";
import type { CloudApiClient } from "./client.js";
import { allPages } from "./pages.js";

export type { Agent, AgentInput, Delegation };

export function agents(client: CloudApiClient) {
  const org = (o: string) => `/orgs/${encodeURIComponent(o)}`;
  const one = (o: string, id: string) => `${org(o)}/agents/${encodeURIComponent(id)}`;
  return {
    async get(o: string, id: string): Promise<Agent> {
      return (await client.get(one(o, id), agentAnswerSchema)).agent;
    },
    /** Agent names are unique in an organization: used to adopt an agent whose id was lost. */
    async findByName(o: string, name: string): Promise<Agent | undefined> {
      return (await allPages(client, `${org(o)}/agents`, agentListSchema)).find((a) => a.name === name);
    },
    async create(o: string, input: AgentInput): Promise<Agent> {
      return (await client.post(`${org(o)}/agents`, agentAnswerSchema, input)).agent;
    },
    async update(o: string, id: string, update: AgentPatch): Promise<Agent> {
      return (await client.patch(one(o, id), agentAnswerSchema, update)).agent;
    },
    delegations(o: string, id: string): Promise<Delegation[]> {
      return allPages(client, `${one(o, id)}/delegations`, delegationListSchema);
    },
    async delegate(o: string, id: string, delegation: unknown): Promise<Delegation> {
      return (await client.post(`${one(o, id)}/delegations`, delegationAnswerSchema, { delegation }))
        .delegation;
    },
    async revokeDelegation(o: string, delegationId: string, revocation: unknown): Promise<Delegation> {
      return (
        await client.post(
          `${org(o)}/delegations/${encodeURIComponent(delegationId)}/revoke`,
          delegationAnswerSchema,
          { revocation },
        )
      ).delegation;
    },
  };
}
