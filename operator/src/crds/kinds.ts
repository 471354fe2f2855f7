// The six kinds of countersign.dev/v1alpha1: names, schemas and what `kubectl get` shows.
import type { z } from "zod";
import { agentSpec, agentStatus } from "./agent.js";
import { mcpServerSpec, mcpServerStatus } from "./mcp-server.js";
import { organizationSpec, organizationStatus } from "./organization.js";
import { policySpec, policyStatus } from "./policy.js";
import { toolSpec, toolStatus } from "./tool.js";
import { webhookEndpointSpec, webhookEndpointStatus } from "./webhook-endpoint.js";

export const group = "countersign.dev";
export const version = "v1alpha1";
export const apiVersion = `${group}/${version}`;
export const category = "countersign";

export interface PrinterColumn {
  name: string;
  type: "string" | "integer" | "boolean" | "date" | "number";
  jsonPath: string;
  description?: string;
  /** 1: shown only with `-o wide`. */
  priority?: number;
}

export interface KindDefinition {
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  description: string;
  spec: z.ZodType;
  status: z.ZodType;
  columns: PrinterColumn[];
}

const ready: PrinterColumn = {
  name: "Ready",
  type: "string",
  jsonPath: '.status.conditions[?(@.type=="Ready")].status',
  description: "Whether the Cloud API matches the spec.",
};
const age: PrinterColumn = { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" };
const message: PrinterColumn = {
  name: "Message",
  type: "string",
  jsonPath: '.status.conditions[?(@.type=="Ready")].message',
  priority: 1,
};
const common = [ready, age, message];

export const kinds: KindDefinition[] = [
  {
    kind: "Organization",
    plural: "organizations",
    singular: "organization",
    shortNames: ["csorg"],
    description: "Binds this namespace to a Countersign organization and holds its settings.",
    spec: organizationSpec,
    status: organizationStatus,
    columns: [
      { name: "Organization", type: "string", jsonPath: ".spec.organizationId" },
      { name: "Display Name", type: "string", jsonPath: ".status.organizationName" },
      ...common,
    ],
  },
  {
    kind: "Agent",
    plural: "agents",
    singular: "agent",
    shortNames: ["csagent"],
    description: "An agent, its policy, delegations and gateway key.",
    spec: agentSpec,
    status: agentStatus,
    columns: [
      { name: "Policy", type: "string", jsonPath: ".spec.policyRef.name" },
      { name: "Disabled", type: "boolean", jsonPath: ".spec.disabled" },
      { name: "Key Secret", type: "string", jsonPath: ".spec.gatewayKey.secretName" },
      ...common,
      { name: "ID", type: "string", jsonPath: ".status.agentId", priority: 1 },
    ],
  },
  {
    kind: "MCPServer",
    plural: "mcpservers",
    singular: "mcpserver",
    shortNames: ["csmcp"],
    description: "An upstream MCP server, or a decision-only integration.",
    spec: mcpServerSpec,
    status: mcpServerStatus,
    columns: [
      { name: "Decision-Only", type: "boolean", jsonPath: ".spec.decisionOnly" },
      { name: "URL", type: "string", jsonPath: ".spec.url" },
      ...common,
    ],
  },
  {
    kind: "Tool",
    plural: "tools",
    singular: "tool",
    shortNames: ["cstool"],
    description: "A tool of an MCP server, or a decision-only tool.",
    spec: toolSpec,
    status: toolStatus,
    columns: [
      { name: "Exposed", type: "string", jsonPath: ".spec.exposedName" },
      { name: "Action", type: "string", jsonPath: ".spec.action" },
      { name: "Server", type: "string", jsonPath: ".spec.mcpServerRef.name" },
      { name: "Enabled", type: "boolean", jsonPath: ".spec.enabled" },
      ...common,
    ],
  },
  {
    kind: "Policy",
    plural: "policies",
    singular: "policy",
    shortNames: ["cspolicy", "cspol"],
    description: "A policy document, its saved examples and its desired rollout.",
    spec: policySpec,
    status: policyStatus,
    columns: [
      {
        name: "Stage",
        type: "string",
        jsonPath: ".status.stage",
        description: "Derived rollout stage (SPEC 3.5).",
      },
      {
        name: "Active",
        type: "integer",
        jsonPath: ".status.activeVersion.number",
        description: "Active version number.",
      },
      {
        name: "Shadow",
        type: "integer",
        jsonPath: ".status.shadowVersion.number",
        description: "Shadow version number.",
      },
      ...common,
    ],
  },
  {
    kind: "WebhookEndpoint",
    plural: "webhookendpoints",
    singular: "webhookendpoint",
    shortNames: ["cswebhook", "cswh"],
    description: "A webhook endpoint; its signing secret is written to a Secret.",
    spec: webhookEndpointSpec,
    status: webhookEndpointStatus,
    columns: [
      { name: "URL", type: "string", jsonPath: ".spec.url" },
      { name: "Enabled", type: "boolean", jsonPath: ".spec.enabled" },
      {
        name: "Failed",
        type: "integer",
        jsonPath: ".status.deliveries.failed",
        description: "Deliveries that gave up.",
      },
      ...common,
    ],
  },
];

export function kindDefinition(kind: string): KindDefinition {
  const found = kinds.find((k) => k.kind === kind);
  if (!found) throw new Error(`unknown kind ${kind}`);
  return found;
}
