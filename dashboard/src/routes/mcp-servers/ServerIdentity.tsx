import { useQueryClient } from "@tanstack/react-query";
import type { McpServer } from "@countersign/protocol/wire";
import { DashboardError } from "../../api/errors.js";
import { mcpServersApi, mcpServerKeys } from "../../api/mcp-servers.js";
import { ActionButton } from "../../components/ActionButton.js";
import { ActionForm, field, isJsonObject } from "../../components/ActionForm.js";
import { toolKeys } from "../../api/tools.js";

/**
 * The server's own identity (actor type mcp_server): a service-aware upstream signs its results with
 * it. Registered from its first identity document, which the server's operator hands over.
 */
export function ServerIdentity({
  orgId,
  server,
  mayChange,
}: {
  orgId: string;
  server: McpServer;
  mayChange: boolean;
}) {
  const queryClient = useQueryClient();
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: mcpServerKeys.one(server.id) });
    await queryClient.invalidateQueries({ queryKey: toolKeys.all(orgId) });
  };
  return (
    <section>
      <h2>Server identity</h2>
      {server.server_kid ? (
        <p>
          Results of this server are checked against identity <code>{server.server_kid}</code>.
        </p>
      ) : (
        <p className="muted">No identity: the server's results are not signed by it.</p>
      )}
      {mayChange && (
        <>
          <ActionForm
            submit="Register the identity"
            onSubmit={async (d) => {
              let parsed: unknown;
              try {
                parsed = JSON.parse(field(d, "document"));
              } catch {
                throw new DashboardError("VALIDATION_FAILED", "The identity document is not JSON.");
              }
              if (!isJsonObject(parsed))
                throw new DashboardError("VALIDATION_FAILED", "The identity document is not a JSON object.");
              const document = parsed;
              await mcpServersApi.update(orgId, server.id, { server_identity: document });
              await refresh();
            }}
          >
            <label>
              Identity document (JSON, its first document: seq 0, active)
              <textarea name="document" rows={5} required />
            </label>
          </ActionForm>
          {server.server_kid && (
            <ActionButton
              onClick={async () => {
                await mcpServersApi.update(orgId, server.id, { server_identity: null });
                await refresh();
              }}
            >
              Remove the identity
            </ActionButton>
          )}
        </>
      )}
    </section>
  );
}
