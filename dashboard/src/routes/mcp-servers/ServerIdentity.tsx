import { Code, Paper, Stack, Text, Title } from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import type { McpServer } from "@countersign/protocol/wire";
import { DashboardError } from "../../api/errors.js";
import { mcpServersApi, mcpServerKeys } from "../../api/mcp-servers.js";
import { toolKeys } from "../../api/tools.js";
import { ActionButton } from "../../components/ActionButton.js";
import { ActionForm, Field, field, jsonObjectIn } from "../../components/ActionForm.js";

/** What the person reads when the text pasted is no JSON object (nothing is sent then). */
const NOT_A_DOCUMENT =
  "The identity document is not a JSON object: paste the whole document the server's operator gave you.";

/**
 * The refusals of a registration that are about the document the person pasted: it is invalid,
 * its key is another identity's, or it is not the identity the server declares.
 */
const documentRefusals = {
  IDENTITY_INVALID: "server_identity",
  IDENTITY_ALREADY_BOUND: "server_identity",
  UPSTREAM_IDENTITY_UNKNOWN: "server_identity",
};

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
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="server-identity">
      <Stack gap="sm">
        <Title order={2} size="h3" id="server-identity">
          Server identity
        </Title>
        {server.server_kid ? (
          <Text size="sm">
            Results of this server are checked against identity <Code>{server.server_kid}</Code>.
          </Text>
        ) : (
          <Text size="sm" c="dimmed">
            No identity: the server&apos;s results are not signed by it.
          </Text>
        )}
        {mayChange && (
          <>
            <ActionForm
              submit="Register the identity"
              refusalFields={documentRefusals}
              onSubmit={async (d) => {
                const document = jsonObjectIn(field(d, "document"));
                if (!document) throw new DashboardError("VALIDATION_FAILED", NOT_A_DOCUMENT);
                await mcpServersApi.update(orgId, server.id, { server_identity: document });
                await refresh();
              }}
            >
              <Field
                label="Identity document (JSON, its first document: seq 0, active)"
                subject="The identity document"
                name="document"
                issueKey="server_identity"
                multiline
                description="The server's operator hands it over; the server must declare the same identity when the Gateway connects."
                validate={(text) => (jsonObjectIn(text) ? null : NOT_A_DOCUMENT)}
              />
            </ActionForm>
            {server.server_kid && (
              <ActionButton
                variant="default"
                confirm={{
                  title: "Remove the server identity",
                  consequence: `Results of ${server.name} are no longer checked against a signature, and its enabled tools need re-authorization before the Gateway runs them again.`,
                  confirmLabel: "Remove the identity",
                }}
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
      </Stack>
    </Paper>
  );
}
