import { Code, Paper, Stack, Text, Textarea, Title } from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import type { McpServer } from "@countersign/protocol/wire";
import { DashboardError } from "../../api/errors.js";
import { mcpServersApi, mcpServerKeys } from "../../api/mcp-servers.js";
import { toolKeys } from "../../api/tools.js";
import { ActionButton } from "../../components/ActionButton.js";
import { field, isJsonObject } from "../../components/ActionForm.js";
import { FieldForm } from "../../components/FieldForm.js";

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
            <FieldForm
              submit="Register the identity"
              fields={["server_identity"]}
              byCode={documentRefusals}
              onSubmit={async (d) => {
                const document = parseDocument(field(d, "document"));
                await mcpServersApi.update(orgId, server.id, { server_identity: document });
                await refresh();
              }}
            >
              {(errorOf) => (
                <Textarea
                  label="Identity document (JSON, its first document: seq 0, active)"
                  description="The server's operator hands it over; the server must declare the same identity when the Gateway connects."
                  name="document"
                  required
                  autosize
                  minRows={5}
                  maxRows={16}
                  ff="monospace"
                  error={errorOf("server_identity")}
                />
              )}
            </FieldForm>
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

/** The pasted document, checked to be a JSON object before anything is sent. */
function parseDocument(text: string): Record<string, unknown> {
  const refuse = (message: string) =>
    new DashboardError("VALIDATION_FAILED", message, undefined, { field: "server_identity" });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw refuse(
      "The identity document is not JSON. Paste the whole document the server's operator gave you.",
    );
  }
  if (!isJsonObject(parsed)) throw refuse("The identity document is not a JSON object.");
  return parsed;
}
