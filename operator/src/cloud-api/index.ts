import type { ManagedBy } from "@countersign/protocol/wire";
import { agents } from "./agents.js";
import { apiKeys } from "./api-keys.js";
import { CloudApiClient } from "./client.js";
import type { CloudApiHealth } from "./health.js";
import { mcpServers } from "./mcp-servers.js";
import { observeWindows } from "./observe.js";
import { organizations } from "./organizations.js";
import { policies } from "./policies.js";
import { tools } from "./tools.js";
import { webhooks } from "./webhooks.js";

export { RequestBudget, defaultBudget } from "./budget.js";
export { CloudApiHealth, defaultProbeIntervalMs } from "./health.js";
export {
  CloudApiClient,
  CloudApiError,
  CloudApiUnavailableError,
  type CloudApiClientOptions,
} from "./client.js";
export type { Agent, AgentInput, Delegation } from "./agents.js";
export type { ApiKey } from "./api-keys.js";
export type { McpServer, McpServerCreate, McpServerPatch } from "./mcp-servers.js";
export type { Organization, OrganizationUpdate, Principal } from "./organizations.js";
export type { Policy, PolicyExampleWire, PolicyStatusItem, PolicyVersion } from "./policies.js";
export type { AmountMapping, Tool, ToolFields, ToolPatch } from "./tools.js";
export type { WebhookDelivery, WebhookEndpoint, WebhookEndpointInput } from "./webhooks.js";

/** The Cloud API as the operator uses it, one property per resource. */
export function cloudApi(client: CloudApiClient): CloudApi {
  return {
    /** The same API, its writes naming the custom resource being reconciled (docs/access.md). */
    managing: (m: ManagedBy) => cloudApi(client.managing(m)),
    health: client.health,
    organizations: organizations(client),
    agents: agents(client),
    apiKeys: apiKeys(client),
    mcpServers: mcpServers(client),
    tools: tools(client),
    policies: policies(client),
    observeWindows: observeWindows(client),
    webhooks: webhooks(client),
  };
}
export type CloudApi = {
  managing(m: ManagedBy): CloudApi;
  /** Whether the Cloud API answers, shared by every copy `managing` makes (health.ts). */
  health: CloudApiHealth;
  organizations: ReturnType<typeof organizations>;
  agents: ReturnType<typeof agents>;
  apiKeys: ReturnType<typeof apiKeys>;
  mcpServers: ReturnType<typeof mcpServers>;
  tools: ReturnType<typeof tools>;
  policies: ReturnType<typeof policies>;
  observeWindows: ReturnType<typeof observeWindows>;
  webhooks: ReturnType<typeof webhooks>;
};
