import { Anchor, Button, Code, Group, Paper, Stack, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import type { McpServer, Tool } from "@countersign/protocol/wire";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { toolsApi, toolKeys } from "../../api/tools.js";
import { orgPath } from "../../session/organization.js";
import { DataTable } from "../../components/DataTable.js";
import { EmptyState } from "../../components/EmptyState.js";
import { Loaded } from "../../components/Loading.js";
import { ToolState } from "./ToolState.js";

/** The tools made from one server or integration. */
export function ServerTools({
  orgId,
  server,
  mayCreate,
}: {
  orgId: string;
  server: McpServer;
  mayCreate: boolean;
}) {
  const tools = useQuery({
    queryKey: toolKeys.ofServer(orgId, server.id),
    queryFn: () => toolsApi.list(orgId, server.id),
  });
  const newDraft = orgPath(orgId, `/tools/new?server=${server.id}`);
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="server-tools">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h3" id="server-tools">
            Tools
          </Title>
          {mayCreate && (
            <Button component={Link} to={newDraft} variant="light">
              New tool draft
            </Button>
          )}
        </Group>
        <Loaded query={tools}>
          {(page) => (
            <ToolTable
              orgId={orgId}
              tools={page.items}
              empty={
                <EmptyState title="No tools from it yet.">
                  {!mayCreate
                    ? "An owner, admin or developer makes them from what the server lists."
                    : server.kind === "mcp"
                      ? "Discover the server's tools above and make a draft of the ones agents may call."
                      : "Make one with New tool draft: name what agents call and the action policies decide on."}
                </EmptyState>
              }
            />
          )}
        </Loaded>
      </Stack>
    </Paper>
  );
}

/** Tools as a table: what agents call, what runs upstream, the action policies decide on, the state. */
export function ToolTable({ orgId, tools, empty }: { orgId: string; tools: Tool[]; empty: ReactNode }) {
  return (
    <DataTable
      testId="tools"
      caption="Tools"
      rows={tools}
      rowKey={(t) => t.id}
      defaultSort={{ key: "exposed_name", descending: false }}
      empty={empty}
      columns={[
        {
          key: "exposed_name",
          header: "Exposed name",
          sortValue: (t) => t.exposed_name,
          render: (t) => (
            <Anchor component={Link} to={orgPath(orgId, `/tools/${t.id}`)}>
              {t.exposed_name}
            </Anchor>
          ),
        },
        { key: "upstream", header: "Upstream tool", render: (t) => <Code>{t.upstream_name}</Code> },
        {
          key: "action",
          header: "Action",
          sortValue: (t) => t.action,
          render: (t) => <Code>{t.action}</Code>,
        },
        {
          key: "state",
          header: "State",
          sortValue: (t) => `${t.enabled ? 0 : 1}${t.authorization.state}`,
          render: (t) => <ToolState tool={t} />,
        },
      ]}
    />
  );
}
