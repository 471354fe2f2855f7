// An Agent's gateway key: created through the Cloud API and written straight into the Secret the
// Agent names (key "api-key"), so the agent's pod mounts it; replaced when the rotation annotation
// gets a new value, the environment changes, the Secret goes missing or the key stops working
// (the new key is written before the old one is revoked, so the Secret never holds a dead key for
// longer than a pod takes to re-read it); revoked, and its Secret deleted, when the spec drops it.
// The key's secret is in the Secret only: never in status, events or logs.
import { type AgentSpec, type AgentStatus, rotateGatewayKeyAnnotation } from "../crds/agent.js";
import type { CloudApi, ApiKey } from "../cloud-api/index.js";
import { isNotFound, isRefusal } from "../cloud-api/refusal.js";
import type { EventRecorder } from "../kube/events.js";
import { cloudIdAnnotation, type SecretWriter } from "../kube/secrets.js";
import type { ConditionInput } from "../status/conditions.js";
import type { StatusDraft } from "../status/status-draft.js";
import type { AgentObject } from "./agent.js";

export const gatewayKeySecretKey = "api-key";

interface Context {
  cloud: CloudApi;
  secrets: SecretWriter;
  events: EventRecorder;
  object: AgentObject;
  draft: StatusDraft<AgentSpec, AgentStatus>;
  orgId: string;
  agentId: string;
}

const condition = (status: "True" | "False", reason: string, message: string): ConditionInput => ({
  type: "GatewayKeyReady",
  status,
  reason,
  message,
});

/** Revokes a key; one already revoked or gone is fine. */
async function revoke(cloud: CloudApi, orgId: string, id: string): Promise<void> {
  try {
    await cloud.apiKeys.revoke(orgId, id);
  } catch (error) {
    if (!isNotFound(error) && !(isRefusal(error) && error.code === "INVALID_STATE")) throw error;
  }
}

export async function removeGatewayKey(c: Omit<Context, "agentId">): Promise<void> {
  const current = c.draft.status.gatewayKey;
  if (!current) return;
  await revoke(c.cloud, c.orgId, current.id);
  await c.secrets.deleteIfOurs(c.object.metadata!.namespace!, current.secretName);
  c.draft.update({ gatewayKey: undefined });
  await c.events.record(c.object, "Normal", "GatewayKeyRevoked", `Gateway key ${current.prefix} revoked`);
}

export async function syncGatewayKey(c: Context, spec: AgentSpec): Promise<ConditionInput> {
  const want = spec.gatewayKey;
  if (!want) {
    await removeGatewayKey(c);
    return condition("True", "NotRequested", "no gateway key requested");
  }
  const namespace = c.object.metadata!.namespace!;
  const current = c.draft.status.gatewayKey;
  const rotation = c.object.metadata?.annotations?.[rotateGatewayKeyAnnotation];
  const secret = await c.secrets.read(namespace, want.secretName);
  // A status lost after a create is recovered from the Secret's annotation: no second key.
  const knownId = current?.id ?? secret?.metadata?.annotations?.[cloudIdAnnotation];
  const key = knownId ? await c.cloud.apiKeys.findGatewayKey(c.orgId, knownId) : undefined;

  const why = replacementReason(key, {
    agentId: c.agentId,
    environment: want.environment,
    // The key must be in the Secret the spec names now (a renamed Secret gets a fresh key).
    secretHasKey:
      !!secret?.data?.[gatewayKeySecretKey] &&
      (current === undefined || current.secretName === want.secretName),
    rotationRequested: current !== undefined && rotation !== current.rotation,
    known: knownId !== undefined,
  });
  if (!why) {
    c.draft.update({
      gatewayKey: {
        id: key!.id,
        prefix: key!.prefix,
        secretName: want.secretName,
        environment: key!.environment,
        rotation: current ? current.rotation : rotation,
      },
    });
    return condition("True", "Ready", `gateway key ${key!.prefix} is in Secret ${want.secretName}`);
  }

  const name = `${namespace}/${c.object.metadata!.name} (operator)`.slice(0, 200);
  const created = await c.cloud.apiKeys.createGatewayKey(c.orgId, {
    name,
    agent_id: c.agentId,
    environment: want.environment,
  });
  await c.secrets.write(c.object, want.secretName, created.api_key.id, {
    [gatewayKeySecretKey]: created.secret,
  });
  if (key && key.state === "active") await revoke(c.cloud, c.orgId, key.id);
  if (current && current.secretName !== want.secretName)
    await c.secrets.deleteIfOurs(namespace, current.secretName);
  c.draft.update({
    gatewayKey: {
      id: created.api_key.id,
      prefix: created.api_key.prefix,
      secretName: want.secretName,
      environment: created.api_key.environment,
      rotation,
    },
  });
  await c.events.record(
    c.object,
    "Normal",
    key ? "GatewayKeyRotated" : "GatewayKeyCreated",
    `Gateway key ${created.api_key.prefix} written to Secret ${want.secretName} (${why})${key?.state === "active" ? `; key ${key.prefix} revoked` : ""}`,
  );
  return condition("True", "Ready", `gateway key ${created.api_key.prefix} is in Secret ${want.secretName}`);
}

/** Why the key must be replaced, or undefined when it is fine. */
function replacementReason(
  key: ApiKey | undefined,
  want: {
    agentId: string;
    environment: "live" | "test";
    secretHasKey: boolean;
    rotationRequested: boolean;
    known: boolean;
  },
): string | undefined {
  if (!key) return want.known ? "the previous key no longer exists" : "first key";
  if (key.state !== "active") return `the previous key was ${key.state}`;
  if (key.agent_id !== want.agentId) return "the previous key belongs to another agent";
  if (key.environment !== want.environment) return `environment changed to ${want.environment}`;
  if (!want.secretHasKey) return "the Secret was missing or renamed";
  if (want.rotationRequested) return "rotation requested";
  return undefined;
}
