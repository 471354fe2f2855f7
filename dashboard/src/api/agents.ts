/** Agents (SPEC 2.2) and their delegations (SPEC 2.8). */
import { queryOptions } from "@tanstack/react-query";
import {
  agentAnswerSchema,
  agentListSchema,
  delegationAnswerSchema,
  delegationListSchema,
  dryRunAnswerSchema,
  type DryRunRequest,
  type AgentInput,
  type AgentPatch,
} from "@countersign/protocol/wire";
import { cloud } from "./cloud.js";
import { inOrg, seg } from "./paths.js";

export const agentKeys = {
  all: (orgId: string) => ["agents", orgId] as const,
  one: (agentId: string) => ["agent", agentId] as const,
  delegations: (agentId: string) => ["delegations", agentId] as const,
};

export const agentsApi = {
  listQuery: (orgId: string) =>
    queryOptions({
      queryKey: agentKeys.all(orgId),
      queryFn: () =>
        cloud.request("GET", inOrg(orgId, "/agents"), agentListSchema, { query: { limit: 100 } }),
    }),
  query: (orgId: string, agentId: string) =>
    queryOptions({
      queryKey: agentKeys.one(agentId),
      queryFn: () => cloud.request("GET", inOrg(orgId, `/agents/${seg(agentId)}`), agentAnswerSchema),
    }),
  create: (orgId: string, body: AgentInput) =>
    cloud.request("POST", inOrg(orgId, "/agents"), agentAnswerSchema, { body }),
  update: (orgId: string, agentId: string, body: AgentPatch) =>
    cloud.request("PATCH", inOrg(orgId, `/agents/${seg(agentId)}`), agentAnswerSchema, { body }),
  /** The Gateway's decision on a call now (SPEC 4.5): nothing recorded, nothing signed. */
  dryRun: (orgId: string, agentId: string, body: DryRunRequest) =>
    cloud.request("POST", inOrg(orgId, `/agents/${seg(agentId)}/dry-run`), dryRunAnswerSchema, { body }),
};

export const delegationsApi = {
  listQuery: (orgId: string, agentId: string) =>
    queryOptions({
      queryKey: agentKeys.delegations(agentId),
      queryFn: () =>
        cloud.request("GET", inOrg(orgId, `/agents/${seg(agentId)}/delegations`), delegationListSchema, {
          query: { limit: 100 },
        }),
    }),
  /** A DELEGATION signed in this browser by the organization principal. */
  submit: (orgId: string, agentId: string, delegation: Record<string, unknown>) =>
    cloud.request("POST", inOrg(orgId, `/agents/${seg(agentId)}/delegations`), delegationAnswerSchema, {
      body: { delegation },
    }),
  revoke: (orgId: string, delegationId: string, revocation: Record<string, unknown>) =>
    cloud.request("POST", inOrg(orgId, `/delegations/${seg(delegationId)}/revoke`), delegationAnswerSchema, {
      body: { revocation },
    }),
};
