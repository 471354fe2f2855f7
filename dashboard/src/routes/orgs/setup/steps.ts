/**
 * The setup checklist of an organization's overview (docs/dashboard.md, "Setup checklist"): the
 * first steps in the order they are taken, each one's state computed from what the Cloud API
 * answered. A pure function of that data and the person's role, so the component only renders it
 * and the definition of "done" is read in one place.
 */
import type {
  Agent,
  ApiKey,
  Delegation,
  Identity,
  McpServer,
  PolicyStatusItem,
  Role,
  Tool,
} from "@countersign/protocol/wire";
import { z } from "zod";
import { can } from "../../../session/roles.js";

export const stepIds = [
  "integration",
  "tool",
  "policy",
  "agent",
  "gateway_key",
  "delegation",
  "activation",
  "approver_key",
] as const;
export type StepId = (typeof stepIds)[number];

/** A step's state; the words are StatusBadge's (theme/status.ts gives each its one colour). */
export type StepState = "done" | "to_do" | "blocked";

export interface SetupStep {
  id: StepId;
  title: string;
  state: StepState;
  /** What the step is and, when it is blocked, what comes first. */
  sentence: string;
  /** The page that does the step (under /orgs/<id>, unless `account`: the person's own page), and the link's words. */
  link: { to: string; label: string; account?: true };
}

/** What the Cloud API answered, read by setup-data.ts; a list is undefined when the role may not read it. */
export interface SetupData {
  mcpServers: readonly Pick<McpServer, "status">[];
  tools: readonly Pick<Tool, "enabled">[];
  policies: readonly PolicyStatusItem[];
  agents: readonly Pick<Agent, "id" | "status" | "policy">[];
  /** GET .../api-keys?kind=gateway: writers only. */
  gatewayKeys: readonly Pick<ApiKey, "state" | "agent_id">[] | undefined;
  /** The delegations of the agents the checklist reads (agentsToCheck), by agent id. */
  delegations: Readonly<Record<string, readonly Pick<Delegation, "state">[]>>;
  principal: boolean;
  /** GET /me/identities: the signed-in person's own personal keys (read only for approving roles). */
  ownIdentities: readonly Pick<Identity, "status">[] | undefined;
  /** For each policy with an active version: whether that version holds some calls for approval. */
  activeHoldsCalls: Readonly<Record<string, boolean>>;
}

/** Agents able to act: active and under a policy. */
export const readyAgents = <A extends Pick<Agent, "status" | "policy">>(agents: readonly A[]) =>
  agents.filter((a) => a.status === "active" && a.policy !== null);

/** The agents whose delegations are read: the first few ready ones (one active delegation is enough). */
export const AGENTS_CHECKED = 10;
export const agentsToCheck = <A extends Pick<Agent, "status" | "policy">>(agents: readonly A[]) =>
  readyAgents(agents).slice(0, AGENTS_CHECKED);

/** What a version's document needs to say for the checklist: whether any call is held for approval. */
const holdingDocument = z.looseObject({
  default_effect: z.string().optional(),
  rules: z.array(z.looseObject({ effect: z.string().optional() })).optional(),
});
export function holdsCalls(document: unknown): boolean {
  const d = holdingDocument.safeParse(document);
  if (!d.success) return false;
  return (
    d.data.default_effect === "require_approval" ||
    (d.data.rules ?? []).some((r) => r.effect === "require_approval")
  );
}

/** Who may take each step (SPEC 5.6): the checklist lists only the steps the person can do. */
const mayDo: Record<StepId, (r: Role | null) => boolean> = {
  integration: can.manage,
  tool: can.manage,
  policy: can.manage,
  agent: can.manage,
  gateway_key: can.manage,
  delegation: can.administer,
  activation: can.administer,
  approver_key: can.decideApprovals,
};

/** The steps the person with `role` can take, in order, each with its state. */
export function setupSteps(data: SetupData, role: Role | null): SetupStep[] {
  const integration = data.mcpServers.some((s) => s.status === "active");
  const tool = data.tools.some((t) => t.enabled);
  const versioned = data.policies.filter((p) => p.active_version || p.shadow_version || p.draft_version);
  const policy = versioned.length > 0;
  const ready = readyAgents(data.agents);
  const agent = ready.length > 0;
  const readyIds = new Set(ready.map((a) => a.id));
  const gatewayKey = (data.gatewayKeys ?? []).some(
    (k) => k.state === "active" && k.agent_id !== null && readyIds.has(k.agent_id),
  );
  const delegation = ready.some((a) => (data.delegations[a.id] ?? []).some((d) => d.state === "active"));
  const active = data.policies.filter((p) => p.active_version);
  const activation = active.length > 0;
  // Someone who may approve has a key: the person reading (when their role approves), or an active
  // version that holds calls and whose approval requirements the Cloud API says someone can meet.
  const approverKey =
    (can.decideApprovals(role) && (data.ownIdentities ?? []).some((i) => i.status === "active")) ||
    active.some((p) => data.activeHoldsCalls[p.policy_id] === true && (p.unapprovable ?? []).length === 0);

  const firstAgent = ready[0];
  const agentPage = firstAgent ? `/agents/${firstAgent.id}` : "/agents";
  const toActivate = versioned[0];
  const state = (done: boolean, blocked: string | false): [StepState, string | null] =>
    done ? ["done", null] : blocked ? ["blocked", blocked] : ["to_do", null];
  const step = (
    id: StepId,
    title: string,
    [s, blocker]: [StepState, string | null],
    sentence: string,
    link: SetupStep["link"],
  ): SetupStep => ({ id, title, state: s, sentence: blocker ?? sentence, link });

  const steps: SetupStep[] = [
    step(
      "integration",
      "Register an integration",
      state(integration, false),
      "Add the MCP server your agents' tools run on, or a decision-only integration when agents only ask before they act.",
      { to: "/mcp-servers", label: "MCP servers and integrations" },
    ),
    step(
      "tool",
      "Make a tool",
      state(tool, !integration && "Register an MCP server or an integration first."),
      "Turn one of its tools into a tool agents may call: its action, amount and currency, enabled.",
      { to: "/tools", label: "Tools" },
    ),
    step(
      "policy",
      "Write a policy",
      state(policy, false),
      "Say which calls are allowed, held for a person or denied, and save it as a version.",
      { to: "/policies", label: "Policies" },
    ),
    step(
      "agent",
      "Create an agent",
      state(agent, !policy && "Write a policy first: an agent acts under one."),
      "An agent under that policy: the one that will ask before it acts.",
      { to: "/agents", label: "Agents" },
    ),
    step(
      "gateway_key",
      "Give the agent a gateway key",
      state(gatewayKey, !agent && "Create an agent first."),
      "The key the agent sends to the Gateway; it is shown once, when it is made.",
      { to: agentPage, label: "The agent's page" },
    ),
    step(
      "delegation",
      "Grant a delegation",
      state(
        delegation,
        (!agent && "Create an agent first.") ||
          (!data.principal && "Register the organization's principal first: it signs delegations."),
      ),
      "The organization's principal signs which actions the agent may take.",
      data.principal || !agent
        ? { to: agentPage, label: "The agent's page" }
        : { to: "/principal", label: "Principal" },
    ),
    step(
      "activation",
      "Activate a policy version",
      state(activation, !policy && "Save a policy version first."),
      "Until a version is active every call is refused (NO_POLICY).",
      { to: toActivate ? `/policies/${toActivate.policy_id}` : "/policies", label: "The policy's versions" },
    ),
    step(
      "approver_key",
      "Bind an approver's key",
      state(approverKey, false),
      "A person who may approve binds a personal key in their browser; held calls wait for them.",
      { to: "/account", label: "Your account", account: true },
    ),
  ];
  return steps.filter((s) => mayDo[s.id](role));
}

/** How far the person's steps are: done of total, and whether nothing is left. */
export function progressOf(steps: readonly SetupStep[]) {
  const done = steps.filter((s) => s.state === "done").length;
  return { done, total: steps.length, complete: done === steps.length };
}
