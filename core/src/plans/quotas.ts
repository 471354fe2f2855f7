/**
 * Plan quotas of SPEC 8.6 (with the spec's correction table for agents, MCP
 * servers, tools, policies and retention). `null` means unlimited.
 */
import { planNames } from "@countersign/protocol/wire";

/** The plans are wire names, declared once with the wire schemas. */
export const plans = planNames;
export type Plan = (typeof plans)[number];

export interface Quotas {
  protectedActionsPerMonth: number | null;
  members: number | null;
  apiKeys: number | null;
  webhookEndpoints: number | null;
  agents: number | null;
  mcpServers: number | null;
  tools: number | null;
  policies: number | null;
  retentionDays: number | null;
}

export const quotas: Record<Plan, Quotas> = {
  developer: {
    protectedActionsPerMonth: 500,
    members: 1,
    apiKeys: 5,
    webhookEndpoints: 2,
    agents: 5,
    mcpServers: 5,
    tools: 50,
    policies: 5,
    retentionDays: 30,
  },
  startup: {
    protectedActionsPerMonth: 25_000,
    members: 10,
    apiKeys: 25,
    webhookEndpoints: 10,
    agents: 50,
    mcpServers: 50,
    tools: 500,
    policies: 50,
    retentionDays: 90,
  },
  growth: {
    protectedActionsPerMonth: 250_000,
    members: 50,
    apiKeys: 100,
    webhookEndpoints: 50,
    agents: 250,
    mcpServers: 250,
    tools: 2500,
    policies: 250,
    retentionDays: 365,
  },
  scale: {
    protectedActionsPerMonth: 2_000_000,
    members: 200,
    apiKeys: 500,
    webhookEndpoints: 200,
    agents: 1000,
    mcpServers: 1000,
    tools: 10_000,
    policies: 1000,
    retentionDays: 730,
  },
  enterprise: {
    protectedActionsPerMonth: null,
    members: null,
    apiKeys: null,
    webhookEndpoints: null,
    agents: null,
    mcpServers: null,
    tools: null,
    policies: null,
    retentionDays: null,
  },
};

export function isPlan(v: unknown): v is Plan {
  return typeof v === "string" && (plans as readonly string[]).includes(v);
}
