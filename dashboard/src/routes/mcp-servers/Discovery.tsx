import { Anchor, Button, Code, Group, Paper, Stack, Text, Title } from "@mantine/core";
import type { Discovery as Found, McpServer } from "@countersign/protocol/wire";
import { useState } from "react";
import { Link } from "react-router";
import { mcpServersApi } from "../../api/mcp-servers.js";
import { orgPath } from "../../session/organization.js";
import { DataTable } from "../../components/DataTable.js";
import { EmptyState } from "../../components/EmptyState.js";
import { RefusalNotice } from "../../components/RefusalNotice.js";
import { StatusBadge } from "../../components/StatusBadge.js";

type Listed = Found["tools"][number];

/**
 * Lists the server's tools as it answers tools/list now. Refusals say why: the address is not
 * allowed (URL_NOT_ALLOWED and its reason), too many discoveries at once (DISCOVERY_BUSY), or the
 * upstream failed (UPSTREAM_UNREACHABLE, UPSTREAM_ERROR, UPSTREAM_TIMEOUT, ...).
 */
export function Discovery({ orgId, server }: { orgId: string; server: McpServer }) {
  const [found, setFound] = useState<Found | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const discover = async () => {
    setBusy(true);
    setError(null);
    try {
      setFound(await mcpServersApi.discover(orgId, server.id));
    } catch (err) {
      setFound(null);
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="discovery">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h3" id="discovery">
            Discovery
          </Title>
          <Button onClick={() => void discover()} loading={busy}>
            Discover tools
          </Button>
        </Group>
        <Text c="dimmed" size="sm">
          Asks the server for its tools (tools/list) now. Make a draft of the ones agents may call; a tool
          already made links to its page.
        </Text>
        <RefusalNotice error={error} />
        {found && (
          <>
            <Text size="sm" role="status">
              {found.tools.length} tools listed on {found.pages} page{found.pages === 1 ? "" : "s"}.
            </Text>
            <DataTable
              testId="discovered-tools"
              caption="Tools the server lists"
              rows={found.tools}
              rowKey={(t) => t.name}
              columns={discoveredColumns(orgId, server)}
              empty={
                <EmptyState title="The server lists no tools.">
                  Add tools to the server itself, then discover again.
                </EmptyState>
              }
            />
          </>
        )}
      </Stack>
    </Paper>
  );
}

const discoveredColumns = (orgId: string, server: McpServer) => [
  { key: "name", header: "Upstream tool", render: (t: Listed) => <Code>{t.name}</Code> },
  {
    key: "description",
    header: "Description",
    render: (t: Listed) =>
      t.description ?? (
        <Text span c="dimmed" size="sm">
          none
        </Text>
      ),
  },
  {
    key: "schema",
    header: "Input schema",
    render: (t: Listed) =>
      t.schema_valid ? (
        <StatusBadge status="valid" label="usable" />
      ) : (
        <StatusBadge
          status="invalid"
          label={`unusable: ${t.schema_problem?.replace(/_/g, " ") ?? "unknown"}`}
        />
      ),
  },
  {
    key: "tool",
    header: "Tool here",
    render: (t: Listed) =>
      t.tool_id ? (
        <Anchor component={Link} to={orgPath(orgId, `/tools/${t.tool_id}`)}>
          open the tool
        </Anchor>
      ) : t.schema_valid ? (
        <Anchor
          component={Link}
          to={orgPath(orgId, `/tools/new?server=${server.id}&upstream=${encodeURIComponent(t.name)}`)}
          aria-label={`Make a draft of ${t.name}`}
        >
          Make a draft
        </Anchor>
      ) : null,
  },
];
