import { Alert, Code, Group, Paper, Stack, Text, Title } from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import type { Role, Tool } from "@countersign/protocol/wire";
import { toolsApi, toolKeys } from "../../api/tools.js";
import { can } from "../../session/roles.js";
import { ActionButton } from "../../components/ActionButton.js";
import { Facts } from "../../components/Facts.js";
import { When } from "../../components/When.js";
import { statusColor } from "../../theme/status.js";

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
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="binding">
      <Stack gap="sm">
        <Title order={2} size="h3" id="binding">
          Binding and authorization
        </Title>
        {authorization.state === "reauthorization_required" && (
          <Alert
            color={statusColor(authorization.state)}
            variant="light"
            role="status"
            title="Re-authorization required"
            data-testid="reauthorization-required"
          >
            What this tool is bound to changed after it was authorized, so the Gateway refuses its calls with{" "}
            <Code>TOOL_REAUTHORIZATION_REQUIRED</Code> (nothing is recorded or consumed). An owner or admin
            reviews the binding below and authorizes it.
          </Alert>
        )}
        <Facts
          items={[
            {
              term: "Bound to",
              value: (
                <>
                  {binding.url ? <Code>{binding.url}</Code> : "a decision-only integration"}, upstream tool{" "}
                  <Code>{binding.upstream_name}</Code>, credential version {binding.credential_version}
                  {binding.server_kid ? (
                    <>
                      , server identity <Code>{binding.server_kid}</Code>
                    </>
                  ) : null}
                  {binding.declaration ? ", and what the server declared of the tool (shown above)" : null}
                </>
              ),
            },
            { term: "Binding digest", value: <Code>{binding.digest}</Code>, testId: "binding-digest" },
            {
              term: "Authorized binding",
              value: authorization.binding_digest ? (
                <>
                  <Code>{authorization.binding_digest}</Code> (<When at={authorization.authorized_at} />)
                </>
              ) : (
                <Text span c="dimmed" size="sm">
                  never authorized
                </Text>
              ),
            },
          ]}
        />
        {admin ? (
          // Keyed by the tool's version, so a refusal shown before a change does not outlive it.
          <Group key={tool.updated_at} align="flex-start">
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
                variant="default"
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
                variant="light"
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
          </Group>
        ) : (
          can.manage(role) &&
          !tool.enabled && (
            <Text c="dimmed" size="sm">
              An owner or admin enables this draft.
            </Text>
          )
        )}
      </Stack>
    </Paper>
  );
}
