import { Paper, Stack, Text, Title } from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { McpServer } from "@countersign/protocol/wire";
import { mcpServersApi, mcpServerKeys } from "../../api/mcp-servers.js";
import { toolKeys } from "../../api/tools.js";
import { ActionButton } from "../../components/ActionButton.js";
import { ActionForm, Field, field } from "../../components/ActionForm.js";

/** Sets or removes the Authorization header sent upstream; it is written here and never read back. */
export function CredentialForm({ orgId, server }: { orgId: string; server: McpServer }) {
  const queryClient = useQueryClient();
  // A new form after each change, so the value typed does not stay in the page.
  const [round, setRound] = useState(0);
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: mcpServerKeys.one(server.id) });
    await queryClient.invalidateQueries({ queryKey: toolKeys.all(orgId) });
  };
  const configured = !!server.credential?.configured;
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="credential">
      <Stack gap="sm">
        <Title order={2} size="h3" id="credential">
          Authorization header
        </Title>
        <Text c="dimmed" size="sm">
          Stored encrypted and never shown again. Each change gives a new credential version, which enabled
          tools of this server must have re-authorized before the Gateway runs them again.
        </Text>
        <ActionForm
          key={round}
          submit={configured ? "Replace the header" : "Set the header"}
          onSubmit={async (d) => {
            await mcpServersApi.update(orgId, server.id, { authorization: field(d, "authorization") });
            setRound((n) => n + 1);
            await refresh();
          }}
        >
          <Field
            label="New header value (for example Bearer …)"
            subject="The new header value"
            name="authorization"
            type="password"
            autoComplete="off"
          />
        </ActionForm>
        {configured && (
          <ActionButton
            variant="default"
            confirm={{
              title: "Remove the authorization header",
              consequence: `${server.name} is called without an Authorization header from now on, and its enabled tools need re-authorization before the Gateway runs them again.`,
              confirmLabel: "Remove the header",
            }}
            onClick={async () => {
              await mcpServersApi.update(orgId, server.id, { authorization: null });
              await refresh();
            }}
          >
            Remove the header
          </ActionButton>
        )}
      </Stack>
    </Paper>
  );
}
