import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { McpServer } from "@countersign/protocol/wire";
import { mcpServersApi, mcpServerKeys } from "../../api/mcp-servers.js";
import { ActionButton } from "../../components/ActionButton.js";
import { ActionForm, field } from "../../components/ActionForm.js";
import { toolKeys } from "../../api/tools.js";

/** Sets or removes the Authorization header sent upstream; it is written here and never read back. */
export function CredentialForm({ orgId, server }: { orgId: string; server: McpServer }) {
  const queryClient = useQueryClient();
  // A new form after each change, so the value typed does not stay in the page.
  const [round, setRound] = useState(0);
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: mcpServerKeys.one(server.id) });
    await queryClient.invalidateQueries({ queryKey: toolKeys.all(orgId) });
  };
  return (
    <section>
      <h2>Authorization header</h2>
      <p className="muted">
        Stored encrypted and never shown again. Each change gives a new credential version.
      </p>
      <ActionForm
        key={round}
        submit={server.credential?.configured ? "Replace the header" : "Set the header"}
        onSubmit={async (d) => {
          await mcpServersApi.update(orgId, server.id, { authorization: field(d, "authorization") });
          setRound((n) => n + 1);
          await refresh();
        }}
      >
        <label>
          New header value (for example Bearer …)
          <input name="authorization" type="password" required autoComplete="off" />
        </label>
      </ActionForm>
      {server.credential?.configured && (
        <ActionButton
          onClick={async () => {
            await mcpServersApi.update(orgId, server.id, { authorization: null });
            await refresh();
          }}
        >
          Remove the header
        </ActionButton>
      )}
    </section>
  );
}
