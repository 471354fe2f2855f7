/**
 * Reads what the setup checklist's steps are computed from (steps.ts), through the dashboard's
 * Cloud API modules. Lists a role may not read are not asked for (a developer's key list holds
 * gateway keys only; the checklist shows an approver nothing that needs it). Never stale: the
 * overview shows the state as it is when the person comes back to it.
 */
import { useQueries, useQuery, type UseQueryResult } from "@tanstack/react-query";
import type { Role } from "@countersign/protocol/wire";
import { agentsApi, delegationsApi } from "../../../api/agents.js";
import { apiKeysApi } from "../../../api/api-keys.js";
import { identitiesApi } from "../../../api/me.js";
import { mcpServersApi } from "../../../api/mcp-servers.js";
import { policies } from "../../../api/policies.js";
import { principalApi } from "../../../api/principal.js";
import { toolsApi } from "../../../api/tools.js";
import { can } from "../../../session/roles.js";
import { agentsToCheck, holdsCalls, type SetupData } from "./steps.js";

const fresh = { staleTime: 0 } as const;
const key = (orgId: string, what: string, ...more: string[]) => ["setup", orgId, what, ...more];

/** The checklist's data once every list it needs is read, or the first query still pending or failed. */
export function useSetupData(
  orgId: string,
  role: Role | null,
  enabled: boolean,
): { data?: SetupData; pending: boolean; error: unknown } {
  const on = enabled;
  const mcpServers = useQuery({
    queryKey: key(orgId, "mcp-servers"),
    queryFn: () => mcpServersApi.list(orgId),
    enabled: on,
    ...fresh,
  });
  const tools = useQuery({
    queryKey: key(orgId, "tools"),
    queryFn: () => toolsApi.list(orgId),
    enabled: on,
    ...fresh,
  });
  const status = useQuery({
    queryKey: key(orgId, "policy-status"),
    queryFn: () => policies.status(orgId),
    enabled: on,
    ...fresh,
  });
  const agents = useQuery({ ...agentsApi.listQuery(orgId), enabled: on, ...fresh });
  const keys = useQuery({
    ...apiKeysApi.listQuery(orgId, "gateway"),
    enabled: on && can.manage(role),
    ...fresh,
  });
  const principal = useQuery({ ...principalApi.query(orgId), enabled: on, ...fresh });
  const own = useQuery({
    queryKey: key(orgId, "own-identities"),
    queryFn: () => identitiesApi.list(),
    enabled: on && can.decideApprovals(role),
    ...fresh,
  });
  const checked = agentsToCheck(agents.data?.items ?? []);
  const delegations = useQueries({
    queries: checked.map((a) => ({
      ...delegationsApi.listQuery(orgId, a.id),
      enabled: on,
      ...fresh,
    })),
  });
  const active = (status.data?.items ?? []).flatMap((p) =>
    p.active_version ? [{ policyId: p.policy_id, versionId: p.active_version.id }] : [],
  );
  const versions = useQueries({
    queries: active.map((v) => ({
      queryKey: key(orgId, "version", v.versionId),
      queryFn: () => policies.version(orgId, v.policyId, v.versionId),
      enabled: on,
      // A version's document never changes.
      staleTime: Infinity,
    })),
  });

  const all: UseQueryResult[] = [mcpServers, tools, status, agents, principal, ...delegations, ...versions];
  if (can.manage(role)) all.push(keys);
  if (can.decideApprovals(role)) all.push(own);
  const failed = all.find((q) => q.isError);
  if (failed) return { pending: false, error: failed.error };
  if (all.some((q) => q.isPending)) return { pending: true, error: null };
  return {
    pending: false,
    error: null,
    data: {
      mcpServers: mcpServers.data!.items,
      tools: tools.data!.items,
      policies: status.data!.items,
      agents: agents.data!.items,
      gatewayKeys: keys.data?.items,
      delegations: Object.fromEntries(checked.map((a, i) => [a.id, delegations[i]!.data!.items])),
      principal: principal.data!.principal !== null && principal.data!.principal.valid,
      ownIdentities: own.data?.items,
      activeHoldsCalls: Object.fromEntries(
        active.map((v, i) => [v.policyId, holdsCalls(versions[i]!.data!.version.document)]),
      ),
    },
  };
}
