// An Agent's gateway key: created through the Cloud API and written straight into the Secret the
// Agent names (key "api-key"), so the agent's pod mounts it; replaced when the rotation annotation
// gets a new value, the environment changes, the Secret goes missing, its value is overwritten or
// the key stops working (the new key is written before the old one is revoked, so the Secret never
// holds a dead key for longer than a pod takes to re-read it; at the plan's key cap the old key is
// revoked first); revoked, and its Secret deleted, when the spec drops it or the Agent is deleted.
//
// Exactly one live key per Agent, whatever fails when (docs/crds.md, "Creation, adoption and
// cleanup"): every key is created for the Agent's metadata.uid (`created_for`), so a key whose
// creation answer was lost (the operator killed before the Secret was written) is found with one
// filtered read before the next key is made, and revoked (its secret exists nowhere). A pass reads
// only the key its Secret holds. A Secret of that name the operator did not make stops everything
// before anything is created. The key's secret is in the Secret only: never in status, events or
// logs; the Secret carries its SHA-256, so a value overwritten by someone else is noticed.
import { createHash } from "node:crypto";
import type { V1Secret } from "@kubernetes/client-node";
import { type AgentSpec, type AgentStatus, rotateGatewayKeyAnnotation } from "../crds/agent.js";
import type { CloudApi, ApiKey } from "../cloud-api/index.js";
import { isNotFound, isRefusal } from "../cloud-api/refusal.js";
import type { EventRecorder } from "../kube/events.js";
import { cloudIdAnnotation, isOurs, SecretNotOursError, type SecretWriter } from "../kube/secrets.js";
import type { ConditionInput } from "../status/conditions.js";
import type { StatusDraft } from "../status/status-draft.js";
import type { AgentObject } from "./agent.js";

export const gatewayKeySecretKey = "api-key";
/** On the Secret: SHA-256 (hex) of the key written, to notice a value someone else put there. */
export const keyDigestAnnotation = "countersign.dev/api-key-sha256";
/** On the Secret: the rotation annotation's value the key was written for (survives a lost status). */
export const keyRotationAnnotation = "countersign.dev/rotation";

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

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** Revokes a key; one already revoked or gone is fine. */
async function revoke(cloud: CloudApi, orgId: string, id: string): Promise<void> {
  try {
    await cloud.apiKeys.revoke(orgId, id);
  } catch (error) {
    if (!isNotFound(error) && !(isRefusal(error) && error.code === "INVALID_STATE")) throw error;
  }
}

/** Revokes the keys made for this Agent, but `keep`; answers how many. */
async function revokeMadeFor(c: Omit<Context, "agentId">, keep: string | undefined): Promise<number> {
  const made = await c.cloud.apiKeys.unrevokedCreatedFor(c.orgId, c.object.metadata!.uid!);
  const stray = made.filter((k) => k.id !== keep);
  for (const k of stray) await revoke(c.cloud, c.orgId, k.id);
  return stray.length;
}

/**
 * Revokes the Agent's key and every other key made for it (`sweep`: also those whose creation
 * answer was lost), and deletes the operator's Secrets of it (the status's and `secretName`).
 */
export async function removeGatewayKey(
  c: Omit<Context, "agentId">,
  o: { sweep: boolean; secretName?: string },
): Promise<void> {
  const current = c.draft.status.gatewayKey;
  const namespace = c.object.metadata!.namespace!;
  if (current) await revoke(c.cloud, c.orgId, current.id);
  if (current || o.sweep) await revokeMadeFor(c, undefined);
  for (const name of new Set([current?.secretName, o.secretName]))
    if (name) await c.secrets.deleteIfOurs(namespace, name);
  c.draft.update({ gatewayKey: undefined });
  if (current)
    await c.events.record(c.object, "Normal", "GatewayKeyRevoked", `Gateway key ${current.prefix} revoked`);
}

/** The key a Secret of the operator's holds: its id, the rotation it was written for, whether its value is intact. */
function heldBy(secret: V1Secret | undefined) {
  const value = secret?.data?.[gatewayKeySecretKey];
  const annotations = secret?.metadata?.annotations ?? {};
  const id = annotations[cloudIdAnnotation];
  if (value === undefined || !id) return undefined;
  const digest = annotations[keyDigestAnnotation];
  return {
    id,
    rotation: annotations[keyRotationAnnotation],
    // A Secret written before the digest was kept cannot tell; it is taken as intact.
    overwritten: digest !== undefined && digest !== sha256(Buffer.from(value, "base64").toString("utf8")),
  };
}

export async function syncGatewayKey(c: Context, spec: AgentSpec): Promise<ConditionInput> {
  const want = spec.gatewayKey;
  const current = c.draft.status.gatewayKey;
  if (!want) {
    // Nothing to do (and nothing read) once no key is held.
    if (current) await removeGatewayKey(c, { sweep: true });
    return condition("True", "NotRequested", "no gateway key requested");
  }
  const namespace = c.object.metadata!.namespace!;
  const rotation = c.object.metadata?.annotations?.[rotateGatewayKeyAnnotation];
  const secret = await c.secrets.read(namespace, want.secretName);
  // A key made now would have nowhere to go: nothing is created while someone else's Secret holds the name.
  if (secret && !isOurs(secret))
    return condition("False", "SecretNotOwned", new SecretNotOursError(want.secretName).message);

  // The Secret says which key is in use (a status lost after a write is recovered from it).
  const held = heldBy(secret);
  const knownId = held?.id ?? current?.id;
  const key = knownId ? await c.cloud.apiKeys.get(c.orgId, knownId) : undefined;
  // The rotation last acted on; a removed annotation asks for nothing.
  const acted = held?.rotation ?? current?.rotation;
  const why = replacementReason(key, {
    agentId: c.agentId,
    environment: want.environment,
    secretHoldsKey: held !== undefined && held.id === key?.id,
    overwritten: held?.overwritten ?? false,
    rotationRequested: rotation !== undefined && rotation !== acted,
    known: knownId !== undefined,
  });
  if (!why) {
    // A pass that wrote the Secret and died before revoking the key it replaced leaves that to this one.
    if (current && current.id !== key!.id) await revoke(c.cloud, c.orgId, current.id);
    if (current && current.secretName !== want.secretName)
      await c.secrets.deleteIfOurs(namespace, current.secretName);
    c.draft.update({
      gatewayKey: {
        id: key!.id,
        prefix: key!.prefix,
        secretName: want.secretName,
        environment: key!.environment,
        rotation: acted ?? rotation,
      },
    });
    return condition("True", "Ready", `gateway key ${key!.prefix} is in Secret ${want.secretName}`);
  }
  if (held?.overwritten)
    await c.events.record(
      c.object,
      "Warning",
      "GatewayKeyOverwritten",
      `The api-key of Secret ${want.secretName} is not the key the operator wrote; a new key replaces it`,
    );

  // Keys made for this Agent whose creation answer was lost can never be used: revoked first.
  await revokeMadeFor(c, key?.id);
  if (current && current.id !== knownId) await revoke(c.cloud, c.orgId, current.id);
  const name = `${namespace}/${c.object.metadata!.name} (operator)`.slice(0, 200);
  const input = { name, agent_id: c.agentId, environment: want.environment };
  const uid = c.object.metadata!.uid!;
  let created: { api_key: ApiKey; secret: string };
  let revokedFirst = false;
  try {
    created = await c.cloud.apiKeys.createGatewayKey(c.orgId, input, uid);
  } catch (error) {
    // At the plan's key cap the old key makes room: revoked first, then the new one made (docs/crds.md).
    if (!(isRefusal(error) && error.code === "PLAN_LIMIT_EXCEEDED" && key?.state === "active")) throw error;
    await revoke(c.cloud, c.orgId, key.id);
    revokedFirst = true;
    created = await c.cloud.apiKeys.createGatewayKey(c.orgId, input, uid);
  }
  await c.secrets.write(
    c.object,
    want.secretName,
    created.api_key.id,
    { [gatewayKeySecretKey]: created.secret },
    {
      [keyDigestAnnotation]: sha256(created.secret),
      ...(rotation !== undefined ? { [keyRotationAnnotation]: rotation } : {}),
    },
  );
  if (key && key.state === "active" && !revokedFirst) await revoke(c.cloud, c.orgId, key.id);
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
    `Gateway key ${created.api_key.prefix} written to Secret ${want.secretName} (${why})${key?.state === "active" ? `; key ${key.prefix} revoked${revokedFirst ? " first, at the plan's key limit" : ""}` : ""}`,
  );
  return condition("True", "Ready", `gateway key ${created.api_key.prefix} is in Secret ${want.secretName}`);
}

/** Why the key must be replaced, or undefined when it is fine. */
function replacementReason(
  key: ApiKey | undefined,
  want: {
    agentId: string;
    environment: "live" | "test";
    secretHoldsKey: boolean;
    overwritten: boolean;
    rotationRequested: boolean;
    known: boolean;
  },
): string | undefined {
  if (!key) return want.known ? "the previous key no longer exists" : "first key";
  if (key.state !== "active") return `the previous key was ${key.state}`;
  if (key.agent_id !== want.agentId) return "the previous key belongs to another agent";
  if (key.environment !== want.environment) return `environment changed to ${want.environment}`;
  if (!want.secretHoldsKey) return "the Secret was missing or renamed";
  if (want.overwritten) return "the Secret's api-key was overwritten";
  if (want.rotationRequested) return "rotation requested";
  return undefined;
}
