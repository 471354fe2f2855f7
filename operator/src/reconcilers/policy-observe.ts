// Observe windows declared by a Policy's rollout.observe (SPEC 3.9). Each entry names an Agent
// resource of the same namespace; its Cloud API id is that Agent's status.agentId, so an Agent the
// operator has not reconciled yet is waited for. An entry opens one window: a window open already
// (409 OBSERVE_ACTIVE, e.g. opened by a person) is taken as the entry's, never extended; a window
// that ended (expiry, a person, the owner's settings) is not reopened while the entry stays, since
// reopening on every pass would make a window endless. Removing the entry ends its open window.
import type { KubeConfig } from "@kubernetes/client-node";
import type { CloudApi } from "../cloud-api/index.js";
import type { ObserveWindow } from "../cloud-api/observe.js";
import { describeRefusal, isNotFound, isRefusal } from "../cloud-api/refusal.js";
import type { AgentSpec, AgentStatus } from "../crds/agent.js";
import { kindDefinition } from "../crds/kinds.js";
import type { PolicySpec, PolicyStatus } from "../crds/policy.js";
import { CustomObjects } from "../kube/custom-objects.js";

type ObserveEntry = PolicySpec["rollout"]["observe"][number];
export type WindowStatus = NonNullable<PolicyStatus["observeWindows"]>[number];

export interface ObserveOutcome {
  windows: WindowStatus[];
  /** Agents whose resource is missing or has no status.agentId yet. */
  waiting: string[];
  /** Entries the Cloud API refused to open, "agent: CODE: message". */
  refused: string[];
  /** What a person should see, as events. */
  changes: Array<{ reason: "ObserveStarted" | "ObserveEnded"; message: string }>;
}

export function agentReader(kubeConfig: KubeConfig) {
  return new CustomObjects<AgentSpec, AgentStatus>(kubeConfig, kindDefinition("Agent"));
}

const asStatus = (agent: string, w: ObserveWindow): WindowStatus => ({
  agent,
  agentId: w.agent.id,
  windowId: w.id,
  hours: w.hours,
  endsAt: w.ends_at.replace(/\.\d{3}Z$/, "Z"),
  state: w.state,
});

export async function reconcileObserveWindows(o: {
  cloud: CloudApi;
  orgId: string;
  namespace: string;
  /** "namespace/name" of the Policy, given as the windows' reason. */
  declaredBy: string;
  declared: ObserveEntry[];
  recorded: WindowStatus[] | undefined;
  agents: Pick<CustomObjects<AgentSpec, AgentStatus>, "get">;
}): Promise<ObserveOutcome> {
  const api = o.cloud.observeWindows;
  const out: ObserveOutcome = { windows: [], waiting: [], refused: [], changes: [] };
  const declaredNames = new Set(o.declared.map((e) => e.agent));

  for (const old of o.recorded ?? []) {
    if (declaredNames.has(old.agent) || old.state !== "open") continue;
    try {
      // Only the entry's own window: one a person opened after it ended is not the operator's.
      if ((await api.of(o.orgId, old.agentId)).open?.id !== old.windowId) continue;
      await api.end(o.orgId, old.agentId);
      out.changes.push({ reason: "ObserveEnded", message: `Observe window of agent ${old.agent} ended` });
    } catch (error) {
      // NO_OPEN_WINDOW: it ended meanwhile; NOT_FOUND: the agent is gone. Either way nothing is open.
      if (!isNotFound(error)) throw error;
    }
  }

  for (const entry of o.declared) {
    const previous = o.recorded?.find((w) => w.agent === entry.agent);
    const agent = await o.agents.get(o.namespace, entry.agent);
    const agentId = agent?.status?.agentId;
    if (!agentId) {
      out.waiting.push(entry.agent);
      if (previous) out.windows.push(previous);
      continue;
    }
    if (previous && previous.agentId === agentId) {
      if (previous.state === "ended") {
        out.windows.push(previous);
        continue;
      }
      const now = await api.of(o.orgId, agentId);
      out.windows.push(
        now.open?.id === previous.windowId
          ? asStatus(entry.agent, now.open)
          : { ...previous, state: "ended" },
      );
      continue;
    }
    try {
      const name = await api.agentName(o.orgId, agentId);
      const started = await api.start(o.orgId, agentId, {
        hours: entry.hours,
        confirmation: name,
        reason: `declared by Policy ${o.declaredBy}`,
      });
      out.windows.push(asStatus(entry.agent, started));
      out.changes.push({
        reason: "ObserveStarted",
        message: `Observe window of agent ${entry.agent} open for ${entry.hours} h, until ${started.ends_at}`,
      });
    } catch (error) {
      if (!isRefusal(error)) throw error;
      if (error.code === "OBSERVE_ACTIVE") {
        // Open already (a person, or a pass whose status write was lost): the entry's window.
        const now = await api.of(o.orgId, agentId);
        if (now.open) out.windows.push(asStatus(entry.agent, now.open));
        continue;
      }
      out.refused.push(`${entry.agent}: ${describeRefusal(error)}`);
    }
  }
  return out;
}

/** The earliest end of an open window: the status should say "ended" soon after it. */
export function nextWindowEnd(windows: WindowStatus[], now: Date): number | undefined {
  const ends = windows.filter((w) => w.state === "open").map((w) => Date.parse(w.endsAt) - now.getTime());
  return ends.length ? Math.max(1_000, Math.min(...ends) + 1_000) : undefined;
}
