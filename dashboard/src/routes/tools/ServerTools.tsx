import { useQuery } from "@tanstack/react-query";
import type { McpServer, Tool } from "@countersign/protocol/wire";
import { Link } from "react-router";
import { toolsApi, toolKeys } from "../../api/tools.js";
import { orgPath } from "../../session/organization.js";
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
  return (
    <section>
      <h2>Tools</h2>
      <Loaded query={tools}>
        {(page) =>
          page.items.length === 0 ? (
            <p className="muted">No tools from it yet.</p>
          ) : (
            <ToolTable orgId={orgId} tools={page.items} />
          )
        }
      </Loaded>
      {mayCreate && (
        <Link className="button" to={orgPath(orgId, `/tools/new?server=${server.id}`)}>
          New tool draft
        </Link>
      )}
    </section>
  );
}

export function ToolTable({ orgId, tools }: { orgId: string; tools: Tool[] }) {
  return (
    <table data-testid="tools">
      <thead>
        <tr>
          <th>Exposed name</th>
          <th>Upstream tool</th>
          <th>Action</th>
          <th>State</th>
        </tr>
      </thead>
      <tbody>
        {tools.map((t) => (
          <tr key={t.id}>
            <td>
              <Link to={orgPath(orgId, `/tools/${t.id}`)}>{t.exposed_name}</Link>
            </td>
            <td>
              <code>{t.upstream_name}</code>
            </td>
            <td>
              <code>{t.action}</code>
            </td>
            <td>
              <ToolState tool={t} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
