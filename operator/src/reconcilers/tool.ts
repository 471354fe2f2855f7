// Tool reconciler: keeps a Cloud API tool as the spec says, under the MCPServer it names. Tools are
// created as disabled drafts. Enabling a tool, authorizing its binding, or changing what an enabled
// tool is bound to needs a signed-in owner or admin (SPEC 2.3, 4.4): the operator does it only when
// an owner bound it with allow_admin_changes (docs/access.md); otherwise a spec asking for an
// enabled tool shows `Authorized=False` until a person authorizes it in the dashboard.
// The Cloud API has no tool deletion: deleting the resource disables the tool (it is deleted with
// its MCP server).
import { isDeepStrictEqual } from "node:util";
import type { KubeConfig } from "@kubernetes/client-node";
import { type AmountMapping, type Tool, type ToolFields, type ToolPatch } from "../cloud-api/index.js";
import { isNotFound, isRefusal } from "../cloud-api/refusal.js";
import type { Reconciler } from "../controller/controller.js";
import { kindDefinition } from "../crds/kinds.js";
import { toolSpec, type ToolSpec, type ToolStatus } from "../crds/tool.js";
import { CustomObjects, type CustomObject } from "../kube/custom-objects.js";
import type { MCPServerObject } from "./mcp-server.js";
import type { ReconcilerDeps } from "./deps.js";
import { ownedResourceReconciler } from "./owned-resource.js";

export type ToolObject = CustomObject<ToolSpec, ToolStatus>;

interface Deps extends ReconcilerDeps<ToolSpec, ToolStatus> {
  servers: { get(namespace: string, name: string): Promise<MCPServerObject | undefined> };
}

export function toolObjects(kubeConfig: KubeConfig, namespace = "") {
  return new CustomObjects<ToolSpec, ToolStatus>(kubeConfig, kindDefinition("Tool"), namespace);
}

export function toolFields(spec: ToolSpec): ToolFields {
  const amount: AmountMapping | null = spec.amount
    ? {
        amount_path: spec.amount.path,
        ...(spec.amount.currency
          ? { currency: spec.amount.currency }
          : { currency_path: spec.amount.currencyPath! }),
      }
    : null;
  return {
    exposed_name: spec.exposedName,
    upstream_name: spec.upstreamName ?? spec.exposedName,
    action: spec.action,
    ...(spec.inputSchema ? { input_schema: spec.inputSchema as Record<string, unknown> } : {}),
    amount_mapping: amount,
  };
}

/** The members that differ; `input_schema` only when the spec gives one (else discovered upstream). */
export function toolDrift(want: ToolFields, tool: Tool): Partial<ToolFields> {
  const update: Partial<ToolFields> = {};
  if (want.exposed_name !== tool.exposed_name) update.exposed_name = want.exposed_name;
  if (want.upstream_name !== tool.upstream_name) update.upstream_name = want.upstream_name;
  if (want.action !== tool.action) update.action = want.action;
  if (want.input_schema !== undefined && !isDeepStrictEqual(want.input_schema, tool.input_schema))
    update.input_schema = want.input_schema;
  if (!isDeepStrictEqual(want.amount_mapping ?? null, tool.amount_mapping ?? null))
    update.amount_mapping = want.amount_mapping;
  return update;
}

export function toolReconciler(deps: Deps): Reconciler<ToolObject> {
  return ownedResourceReconciler({
    kind: "Tool",
    deps,
    parseSpec: (raw) => toolSpec.parse(raw),
    created: (status) => !!status.toolId,
    // The Cloud API has no tool deletion: the tool is disabled (and goes with its server).
    async cleanUp({ draft, managed }, orgId) {
      if (!orgId || !draft.status.toolId) return;
      try {
        const tool = await managed.tools.get(orgId, draft.status.toolId);
        if (tool.enabled) await managed.tools.update(orgId, tool.id, { enabled: false });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    },
    async sync({ object, namespace, spec, draft, orgId, managed }) {
      const server = await deps.servers.get(namespace, spec.mcpServerRef.name);
      const serverId = server?.status?.mcpServerId;
      if (!serverId)
        return draft.fail(
          "MCPServerNotReady",
          `MCPServer ${spec.mcpServerRef.name} ${server ? "has no Cloud API server yet" : "does not exist"}`,
        );
      const want = toolFields(spec);

      let tool: Tool | undefined;
      try {
        if (draft.status.toolId) {
          try {
            tool = await managed.tools.get(orgId, draft.status.toolId);
          } catch (error) {
            if (!isNotFound(error)) throw error;
          }
        }
        tool ??= await managed.tools.findByExposedName(orgId, serverId, spec.exposedName);
        if (!tool) {
          tool = await managed.tools.create(orgId, serverId, want);
          await deps.events.record(
            object,
            "Normal",
            "Created",
            `Tool ${tool.id} created as a disabled draft`,
          );
        } else {
          const update: ToolPatch = toolDrift(want, tool);
          // The operator may disable a tool, never enable one.
          if (!spec.enabled && tool.enabled) update.enabled = false;
          if (Object.keys(update).length > 0) {
            tool = await managed.tools.update(orgId, tool.id, update);
            await deps.events.record(
              object,
              "Normal",
              "Updated",
              `Set ${Object.keys(update).join(", ")} of tool ${tool.id}`,
            );
          }
        }
      } catch (error) {
        if (isRefusal(error)) {
          if (tool) draft.update({ toolId: tool.id, mcpServerId: serverId, enabled: tool.enabled });
          return draft.refused(error, orgId);
        }
        throw error;
      }
      if (spec.enabled && !(tool.enabled && tool.authorization.state === "authorized")) {
        try {
          if (tool.authorization.state === "reauthorization_required")
            tool = await managed.tools.authorize(orgId, tool.id, tool.binding.digest);
          if (!tool.enabled) tool = await managed.tools.update(orgId, tool.id, { enabled: true });
          await deps.events.record(
            object,
            "Normal",
            "Authorized",
            `Tool ${tool.id} enabled with binding ${tool.binding.digest} authorized`,
          );
        } catch (error) {
          // Without the owner's grant this is a person's to do: shown below, looked at again later.
          if (!(isRefusal(error) && error.code === "ADMIN_REQUIRED")) throw error;
        }
      }
      draft.update({ toolId: tool.id, mcpServerId: serverId, enabled: tool.enabled });
      draft.set({
        type: "Reconciled",
        status: "True",
        reason: "Synced",
        message: `tool ${tool.id} matches the spec`,
      });
      const authorized = tool.enabled && tool.authorization.state === "authorized";
      if (spec.enabled && !authorized) {
        const message = `an owner or admin must enable and authorize tool ${spec.exposedName} in the dashboard (binding ${tool.binding.digest}), or bind the operator with allow_admin_changes (docs/access.md)`;
        draft.set({
          type: "Authorized",
          status: "False",
          reason:
            tool.authorization.state === "reauthorization_required"
              ? "ReauthorizationRequired"
              : "AdminApprovalRequired",
          message,
        });
        draft.set({ type: "Ready", status: "False", reason: "AwaitingAuthorization", message });
      } else {
        draft.set({
          type: "Authorized",
          status: authorized ? "True" : "False",
          reason: authorized ? "Authorized" : "Disabled",
          message: authorized ? "the Gateway uses this tool" : "disabled draft, as the spec says",
        });
        draft.set({
          type: "Ready",
          status: "True",
          reason: "Synced",
          message: authorized ? "tool enabled and authorized" : "tool kept as a disabled draft",
        });
      }
      await draft.write();
      // A person's authorization happens in the dashboard: look again soon while it is awaited.
      return spec.enabled && !authorized ? { requeueAfterMs: 30_000 } : undefined;
    },
  });
}
