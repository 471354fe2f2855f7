// MCPServer reconciler: keeps a Cloud API MCP server or decision-only integration as the spec says.
// The Authorization credential is read from its Secret and sent again whenever that Secret changes
// (status keeps the Secret's resourceVersion, never the credential or a digest of it). A server
// whose id was lost is adopted by its name (unique within the organization), so none is created
// twice. Deletion removes it from the Cloud API before the finalizer goes.
import { CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import { type CloudApi, CloudApiError, type McpServer } from "../cloud-api/index.js";
import type { Reconciler } from "../controller/controller.js";
import { kindDefinition } from "../crds/kinds.js";
import { mcpServerSpec, type MCPServerSpec, type MCPServerStatus } from "../crds/mcp-server.js";
import { CustomObjects, type CustomObject } from "../kube/custom-objects.js";
import type { EventRecorder } from "../kube/events.js";
import { addFinalizer, hasFinalizer, removeFinalizer } from "../kube/finalizer.js";
import { setCondition, type ConditionInput } from "../status/conditions.js";
import { writeStatusIfChanged } from "../status/write.js";
import type { OrganizationLookup } from "./organization-of.js";

export type MCPServerObject = CustomObject<MCPServerSpec, MCPServerStatus>;

interface Deps {
  kubeConfig: KubeConfig;
  cloud: CloudApi;
  events: EventRecorder;
  objects: CustomObjects<MCPServerSpec, MCPServerStatus>;
  organizationOf: (namespace: string) => Promise<OrganizationLookup>;
  now?: () => Date;
}

export function mcpServerObjects(kubeConfig: KubeConfig, namespace = "") {
  return new CustomObjects<MCPServerSpec, MCPServerStatus>(
    kubeConfig,
    kindDefinition("MCPServer"),
    namespace,
  );
}

const notFound = (error: unknown) => error instanceof CloudApiError && error.status === 404;
const refusal = (error: unknown): error is CloudApiError =>
  error instanceof CloudApiError && error.status >= 400 && error.status < 500 && error.status !== 429;

class MissingCredential extends Error {}

export function mcpServerReconciler(deps: Deps): Reconciler<MCPServerObject> {
  const core = deps.kubeConfig.makeApiClient(CoreV1Api);
  const now = deps.now ?? (() => new Date());

  /** The credential and the Secret's resourceVersion; never logged or put in status. */
  async function credential(
    namespace: string,
    spec: MCPServerSpec,
  ): Promise<{ value: string; version: string } | undefined> {
    const ref = spec.credentialSecretRef;
    if (!ref) return undefined;
    let secret;
    try {
      secret = await core.readNamespacedSecret({ name: ref.name, namespace });
    } catch (error) {
      if ((error as { code?: number }).code === 404)
        throw new MissingCredential(`Secret ${ref.name} does not exist`);
      throw error;
    }
    const data = secret.data?.[ref.key];
    if (!data) throw new MissingCredential(`Secret ${ref.name} has no key ${ref.key}`);
    return {
      value: Buffer.from(data, "base64").toString("utf8").trim(),
      version: secret.metadata?.resourceVersion ?? "",
    };
  }

  return {
    kind: "MCPServer",
    async reconcile(_key, object) {
      if (!object) return;
      const namespace = object.metadata!.namespace!;
      const generation = object.metadata?.generation ?? 0;
      const spec = mcpServerSpec.parse(object.spec);
      const name = spec.name ?? object.metadata!.name!;
      const kind = spec.decisionOnly ? "decision_only" : "mcp";
      let status: MCPServerStatus = { ...object.status, observedGeneration: generation };
      const set = (c: ConditionInput) =>
        (status = { ...status, conditions: setCondition(status.conditions, c, generation, now()) });
      const fail = async (reason: string, message: string, requeueAfterMs?: number) => {
        set({ type: "Reconciled", status: "False", reason, message });
        set({ type: "Ready", status: "False", reason, message });
        if (await writeStatusIfChanged(deps.objects, object, status))
          await deps.events.record(object, "Warning", reason, message);
        return requeueAfterMs === undefined ? undefined : { requeueAfterMs };
      };
      const org = await deps.organizationOf(namespace);

      if (object.metadata?.deletionTimestamp) {
        if (!hasFinalizer(object)) return;
        if (status.mcpServerId) {
          if ("problem" in org)
            return fail(
              org.problem.reason,
              `cannot delete the Cloud API server: ${org.problem.message}`,
              30_000,
            );
          try {
            await deps.cloud.mcpServers.delete(org.organizationId, status.mcpServerId);
          } catch (error) {
            if (refusal(error) && !notFound(error))
              return fail(
                "DeleteRefused",
                `the Cloud API refused the deletion: ${error.code}: ${error.message}`,
                60_000,
              );
            if (!notFound(error)) throw error;
          }
        }
        await removeFinalizer(deps.objects, object);
        return;
      }
      if ("problem" in org) return fail(org.problem.reason, org.problem.message, 30_000);
      if (!hasFinalizer(object)) {
        await addFinalizer(deps.objects, object);
        return;
      }
      const orgId = org.organizationId;

      try {
        const cred = kind === "mcp" ? await credential(namespace, spec) : undefined;
        let server: McpServer | undefined;
        if (status.mcpServerId) {
          try {
            server = await deps.cloud.mcpServers.get(orgId, status.mcpServerId);
          } catch (error) {
            if (!notFound(error)) throw error;
          }
        }
        server ??= await deps.cloud.mcpServers.findByName(orgId, name);
        if (server && server.kind !== kind) {
          // The kind of a server cannot change in place: remove the old one, then create anew.
          await deps.cloud.mcpServers.delete(orgId, server.id);
          server = undefined;
        }
        if (!server) {
          server = await deps.cloud.mcpServers.create(
            orgId,
            kind === "mcp"
              ? { kind, name, url: spec.url!, ...(cred ? { authorization: cred.value } : {}) }
              : { kind, name },
          );
          status = { ...status, mcpServerId: server.id, credentialSecretVersion: cred?.version };
          await deps.events.record(
            object,
            "Normal",
            "Created",
            `${kind === "mcp" ? "MCP server" : "Decision-only integration"} ${server.id} created`,
          );
        } else {
          status = { ...status, mcpServerId: server.id };
          const update: { name?: string; url?: string; authorization?: string | null } = {};
          if (server.name !== name) update.name = name;
          if (kind === "mcp" && server.url !== spec.url) update.url = spec.url!;
          if (kind === "mcp" && cred && cred.version !== status.credentialSecretVersion)
            update.authorization = cred.value;
          if (kind === "mcp" && !cred && server.credential?.configured) update.authorization = null;
          if (Object.keys(update).length > 0) {
            server = await deps.cloud.mcpServers.update(orgId, server.id, update);
            status = { ...status, credentialSecretVersion: cred?.version };
            await deps.events.record(
              object,
              "Normal",
              "Updated",
              `Set ${Object.keys(update).join(", ")} of ${server.id}`,
            );
          }
        }
        status = { ...status, serverStatus: server.status };
      } catch (error) {
        if (error instanceof MissingCredential) return fail("CredentialMissing", error.message, 30_000);
        if (refusal(error))
          return fail("Refused", `the Cloud API refused: ${error.code}: ${error.message}`, 60_000);
        throw error;
      }
      set({
        type: "Reconciled",
        status: "True",
        reason: "Synced",
        message: `${status.mcpServerId} matches the spec`,
      });
      set({
        type: "Ready",
        status: "True",
        reason: "Synced",
        message: kind === "mcp" ? "MCP server configured" : "decision-only integration configured",
      });
      await writeStatusIfChanged(deps.objects, object, status);
    },
  };
}
