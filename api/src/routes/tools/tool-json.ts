import type { AmountMapping, Tool } from "@countersign/protocol/wire";
import { bindingDigest, sameBinding, type Binding } from "../../tools/binding.js";

export interface ToolRow {
  id: string;
  mcp_server_id: string;
  exposed_name: string;
  upstream_name: string;
  action: string;
  description: string | null;
  input_schema: unknown;
  amount_mapping: unknown;
  enabled: boolean;
  binding: Record<string, unknown>;
  authorized_binding: Record<string, unknown> | null;
  authorized_at: Date | null;
  authorized_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export const TOOL_COLUMNS = `id, mcp_server_id, exposed_name, upstream_name, action, description, input_schema, amount_mapping, enabled, binding,
  authorized_binding, authorized_at, authorized_by, created_at, updated_at`;

/**
 * Authorization state of a tool's binding: `authorized` (the Gateway uses
 * it), `reauthorization_required` (authorized once, bound to something else
 * since: the Gateway refuses TOOL_REAUTHORIZATION_REQUIRED), `unauthorized` (a draft never authorized).
 */
export function authorizationState(t: Pick<ToolRow, "binding" | "authorized_binding">) {
  if (!t.authorized_binding) return "unauthorized";
  return sameBinding(t.binding, t.authorized_binding) ? "authorized" : "reauthorization_required";
}

export function toolJson(t: ToolRow): Tool {
  return {
    id: t.id,
    mcp_server_id: t.mcp_server_id,
    exposed_name: t.exposed_name,
    upstream_name: t.upstream_name,
    action: t.action,
    description: t.description,
    input_schema: t.input_schema,
    amount_mapping: t.amount_mapping as AmountMapping | null,
    enabled: t.enabled,
    binding: { ...(t.binding as Binding), digest: bindingDigest(t.binding) },
    authorization: {
      state: authorizationState(t),
      binding_digest: t.authorized_binding ? bindingDigest(t.authorized_binding) : null,
      authorized_at: t.authorized_at?.toISOString() ?? null,
      authorized_by: t.authorized_by,
    },
    created_at: t.created_at.toISOString(),
    updated_at: t.updated_at.toISOString(),
  };
}
