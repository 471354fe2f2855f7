// MCPServer reconciler: keeps a Cloud API MCP server or decision-only integration as the spec says.
// The Authorization credential is read from its Secret and sent again whenever that Secret changes
// (status keeps the Secret's resourceVersion, never the credential or a digest of it). A server
// whose id was lost is adopted by its name (unique within the organization), so none is created
// twice. Deletion removes it from the Cloud API before the finalizer goes.
import { CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import type { McpServer } from "../cloud-api/index.js";
import { isNotFound, isRefusal, refusedMessage } from "../cloud-api/refusal.js";
import type { Reconciler } from "../controller/controller.js";
import { kindDefinition } from "../crds/kinds.js";
import { mcpServerSpec, type MCPServerSpec, type MCPServerStatus } from "../crds/mcp-server.js";
import { CustomObjects, type CustomObject } from "../kube/custom-objects.js";
import type { ReconcilerDeps } from "./deps.js";
import { ownedResourceReconciler } from "./owned-resource.js";

export type MCPServerObject = CustomObject<MCPServerSpec, MCPServerStatus>;

type Deps = ReconcilerDeps<MCPServerSpec, MCPServerStatus>;

export function mcpServerObjects(kubeConfig: KubeConfig, namespace = "") {
  return new CustomObjects<MCPServerSpec, MCPServerStatus>(
    kubeConfig,
    kindDefinition("MCPServer"),
    namespace,
  );
}

class MissingCredential extends Error {}

export function mcpServerReconciler(deps: Deps): Reconciler<MCPServerObject> {
  const core = deps.kubeConfig.makeApiClient(CoreV1Api);

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

  return ownedResourceReconciler({
    kind: "MCPServer",
    deps,
    parseSpec: (raw) => mcpServerSpec.parse(raw),
    created: (status) => !!status.mcpServerId,
    async cleanUp({ object, draft, managed }, orgId) {
      const serverId = draft.status.mcpServerId;
      if (!orgId || !serverId) return;
      try {
        await managed.mcpServers.delete(orgId, serverId);
      } catch (error) {
        if (isNotFound(error)) return; // already gone there
        if (!isRefusal(error)) throw error;
        if (error.code !== "IN_USE")
          return draft.fail("DeleteRefused", refusedMessage(error, "the deletion"), 60_000);
        // Its tools have recorded actions, whose evidence keeps it (SPEC 7.3): it stays in the
        // Cloud API with every tool disabled, and the resource goes.
        for (const tool of await deps.cloud.tools.listOf(orgId, serverId))
          if (tool.enabled) await deps.cloud.tools.update(orgId, tool.id, { enabled: false });
        await deps.events.record(
          object,
          "Warning",
          "KeptInUse",
          `${serverId} stays in the Cloud API because its tools have recorded actions; its tools are disabled`,
        );
      }
    },
    async sync({ object, namespace, spec, draft, orgId, managed }) {
      const name = spec.name ?? object.metadata!.name!;
      const kind = spec.decisionOnly ? "decision_only" : "mcp";

      try {
        const cred = kind === "mcp" ? await credential(namespace, spec) : undefined;
        let server: McpServer | undefined;
        if (draft.status.mcpServerId) {
          try {
            server = await managed.mcpServers.get(orgId, draft.status.mcpServerId);
          } catch (error) {
            if (!isNotFound(error)) throw error;
          }
        }
        server ??= await managed.mcpServers.findByName(orgId, name);
        if (server && server.kind !== kind) {
          // The kind of a server cannot change in place: remove the old one, then create anew.
          await managed.mcpServers.delete(orgId, server.id);
          server = undefined;
        }
        if (!server) {
          server = await managed.mcpServers.create(
            orgId,
            kind === "mcp"
              ? { kind, name, url: spec.url!, ...(cred ? { authorization: cred.value } : {}) }
              : { kind, name },
          );
          draft.update({ mcpServerId: server.id, credentialSecretVersion: cred?.version });
          await deps.events.record(
            object,
            "Normal",
            "Created",
            `${kind === "mcp" ? "MCP server" : "Decision-only integration"} ${server.id} created`,
          );
        } else {
          draft.update({ mcpServerId: server.id });
          const update: { name?: string; url?: string; authorization?: string | null } = {};
          if (server.name !== name) update.name = name;
          if (kind === "mcp" && server.url !== spec.url) update.url = spec.url!;
          if (kind === "mcp" && cred && cred.version !== draft.status.credentialSecretVersion)
            update.authorization = cred.value;
          if (kind === "mcp" && !cred && server.credential?.configured) update.authorization = null;
          if (Object.keys(update).length > 0) {
            server = await managed.mcpServers.update(orgId, server.id, update);
            draft.update({ credentialSecretVersion: cred?.version });
            await deps.events.record(
              object,
              "Normal",
              "Updated",
              `Set ${Object.keys(update).join(", ")} of ${server.id}`,
            );
          }
        }
        draft.update({ serverStatus: server.status });
      } catch (error) {
        if (error instanceof MissingCredential) return draft.fail("CredentialMissing", error.message);
        if (isRefusal(error)) return draft.refused(error, orgId);
        throw error;
      }
      draft.set({
        type: "Reconciled",
        status: "True",
        reason: "Synced",
        message: `${draft.status.mcpServerId} matches the spec`,
      });
      draft.set({
        type: "Ready",
        status: "True",
        reason: "Synced",
        message: kind === "mcp" ? "MCP server configured" : "decision-only integration configured",
      });
      await draft.write();
    },
  });
}
