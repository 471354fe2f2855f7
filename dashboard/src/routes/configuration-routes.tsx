/**
 * The routes and navigation links of what an organization configures outside policies: MCP servers
 * and integrations, tools, observe windows, webhooks. Kept here so App and Shell name them in one line.
 */
import { NavLink, Route } from "react-router";
import type { Role } from "@countersign/protocol/wire";
import { orgPath } from "../session/organization.js";
import { can } from "../session/roles.js";
import { McpServerPage } from "./mcp-servers/McpServerPage.js";
import { McpServersPage } from "./mcp-servers/McpServersPage.js";
import { ObserveReportPage } from "./observe/ObserveReportPage.js";
import { ObserveWindowsPage } from "./observe/ObserveWindowsPage.js";
import { NewToolPage } from "./tools/NewToolPage.js";
import { ToolPage } from "./tools/ToolPage.js";
import { ToolsPage } from "./tools/ToolsPage.js";
import { WebhookPage } from "./webhooks/WebhookPage.js";
import { WebhooksPage } from "./webhooks/WebhooksPage.js";

export const configurationRoutes = (
  <>
    <Route path="/orgs/:orgId/mcp-servers" element={<McpServersPage />} />
    <Route path="/orgs/:orgId/mcp-servers/:serverId" element={<McpServerPage />} />
    <Route path="/orgs/:orgId/tools" element={<ToolsPage />} />
    <Route path="/orgs/:orgId/tools/new" element={<NewToolPage />} />
    <Route path="/orgs/:orgId/tools/:toolId" element={<ToolPage />} />
    <Route path="/orgs/:orgId/observe" element={<ObserveWindowsPage />} />
    <Route path="/orgs/:orgId/observe/:windowId" element={<ObserveReportPage />} />
    <Route path="/orgs/:orgId/webhooks" element={<WebhooksPage />} />
    <Route path="/orgs/:orgId/webhooks/:webhookId" element={<WebhookPage />} />
  </>
);

/** Webhooks are for owners, admins and developers only (the Cloud API refuses the others). */
export function ConfigurationLinks({ orgId, role }: { orgId: string; role: Role }) {
  return (
    <>
      <NavLink to={orgPath(orgId, "/mcp-servers")}>MCP servers</NavLink>
      <NavLink to={orgPath(orgId, "/tools")}>Tools</NavLink>
      <NavLink to={orgPath(orgId, "/observe")}>Observe windows</NavLink>
      {can.manage(role) && <NavLink to={orgPath(orgId, "/webhooks")}>Webhooks</NavLink>}
    </>
  );
}
