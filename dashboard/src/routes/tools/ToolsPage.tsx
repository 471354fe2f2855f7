import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { toolsApi, toolKeys } from "../../api/tools.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { can } from "../../session/roles.js";
import { Loaded } from "../../components/Loading.js";
import { ToolTable } from "./ServerTools.js";

/** Every tool of the organization: what agents call, and whether the Gateway runs it. */
export function ToolsPage() {
  const { orgId, org } = useCurrentOrganization();
  const tools = useQuery({ queryKey: toolKeys.all(orgId), queryFn: () => toolsApi.list(orgId) });
  return (
    <main>
      <h1>Tools</h1>
      <p className="muted">
        A developer's tool is a draft; an owner or admin enables it, which authorizes what it is bound to.
      </p>
      <Loaded query={tools}>
        {(page) =>
          page.items.length === 0 ? (
            <p className="muted">No tools yet.</p>
          ) : (
            <ToolTable orgId={orgId} tools={page.items} />
          )
        }
      </Loaded>
      {org && can.manage(org.role) && (
        <Link className="button" to={orgPath(orgId, "/tools/new")}>
          New tool draft
        </Link>
      )}
    </main>
  );
}
