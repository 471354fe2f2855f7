import { useQueryClient } from "@tanstack/react-query";
import type { Tool } from "@countersign/protocol/wire";
import { toolsApi, toolKeys } from "../../api/tools.js";
import type { Role } from "@countersign/protocol/wire";
import { can } from "../../session/roles.js";
import { ActionButton } from "../../components/ActionButton.js";
import { When } from "../../components/When.js";

/**
 * What the tool is bound to and whether that is authorized. Enabling a draft authorizes its binding;
 * once authorized, a changed binding (server address, credential, identity, upstream tool, schema,
 * amount mapping, the server's declaration of the tool) is refused by the Gateway (TOOL_REAUTHORIZATION_REQUIRED) until an owner or admin,
 * signed in, authorizes exactly the binding shown here (BINDING_CHANGED if it changed meanwhile).
 */
export function ToolAuthorization({ orgId, tool, role }: { orgId: string; tool: Tool; role: Role }) {
  const queryClient = useQueryClient();
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: toolKeys.one(tool.id) });
    await queryClient.invalidateQueries({ queryKey: toolKeys.all(orgId) });
  };
  const admin = can.administer(role);
  const { binding, authorization } = tool;
  return (
    <section>
      <h2>Binding and authorization</h2>
      {authorization.state === "reauthorization_required" && (
        <div className="warning" role="status" data-testid="reauthorization-required">
          <strong>Re-authorization required.</strong> What this tool is bound to changed after it was
          authorized, so the Gateway refuses its calls with TOOL_REAUTHORIZATION_REQUIRED (nothing is recorded
          or consumed). An owner or admin reviews the binding below and authorizes it.
        </div>
      )}
      <dl className="facts">
        <dt>Bound to</dt>
        <dd>
          {binding.url ? <code>{binding.url}</code> : "a decision-only integration"}, upstream tool{" "}
          <code>{binding.upstream_name}</code>, credential version {binding.credential_version}
          {binding.server_kid ? (
            <>
              , server identity <code>{binding.server_kid}</code>
            </>
          ) : null}
          {binding.declaration ? ", and what the server declared of the tool (shown above)" : null}
        </dd>
        <dt>Binding digest</dt>
        <dd>
          <code data-testid="binding-digest">{binding.digest}</code>
        </dd>
        <dt>Authorized binding</dt>
        <dd>
          {authorization.binding_digest ? (
            <>
              <code>{authorization.binding_digest}</code> (<When at={authorization.authorized_at} />)
            </>
          ) : (
            <span className="muted">never authorized</span>
          )}
        </dd>
      </dl>
      {admin ? (
        // Keyed by the tool's version, so a refusal shown before a change does not outlive it.
        <div className="actions" key={tool.updated_at}>
          {!tool.enabled && (
            <ActionButton
              onClick={async () => {
                await toolsApi.update(orgId, tool.id, { enabled: true });
                await refresh();
              }}
            >
              Enable the tool
            </ActionButton>
          )}
          {tool.enabled && (
            <ActionButton
              onClick={async () => {
                await toolsApi.update(orgId, tool.id, { enabled: false });
                await refresh();
              }}
            >
              Disable the tool
            </ActionButton>
          )}
          {authorization.state !== "authorized" && authorization.binding_digest !== null && (
            <ActionButton
              onClick={async () => {
                try {
                  await toolsApi.authorize(orgId, tool.id, binding.digest);
                } finally {
                  await refresh();
                }
              }}
            >
              Authorize this binding
            </ActionButton>
          )}
        </div>
      ) : (
        can.manage(role) && !tool.enabled && <p className="muted">An owner or admin enables this draft.</p>
      )}
    </section>
  );
}
