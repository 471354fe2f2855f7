import { Anchor, Button, Stack } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { toolsApi, toolKeys } from "../../api/tools.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { EmptyState } from "../../components/EmptyState.js";
import { Loaded } from "../../components/Loading.js";
import { PageHeader } from "../../components/PageHeader.js";
import { ToolTable } from "./ServerTools.js";

/** Every tool of the organization: what agents call, and whether the Gateway runs it. */
export function ToolsPage() {
  const { orgId, org } = useCurrentOrganization();
  const tools = useQuery({ queryKey: toolKeys.all(orgId), queryFn: () => toolsApi.list(orgId) });
  const writer = !!org && can.manage(org.role);
  return (
    <Stack gap="lg">
      <PageHeader
        title="Tools"
        description="A developer's tool is a draft; an owner or admin enables it, which authorizes what it is bound to."
        actions={
          writer && (
            <Button component={Link} to={orgPath(orgId, "/tools/new")}>
              New tool draft
            </Button>
          )
        }
      />
      <Loaded query={tools}>
        {(page) => (
          <ToolTable
            orgId={orgId}
            tools={page.items}
            empty={
              <EmptyState title="No tools yet.">
                {writer ? (
                  <>
                    Register the server they run on under{" "}
                    <Anchor component={Link} to={orgPath(orgId, "/mcp-servers")}>
                      MCP servers
                    </Anchor>
                    , discover its tools and make a draft of each one agents may call.
                  </>
                ) : (
                  "An owner, admin or developer makes them from a registered MCP server or integration."
                )}
              </EmptyState>
            }
          />
        )}
      </Loaded>
    </Stack>
  );
}
