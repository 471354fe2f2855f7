/**
 * The routes of what an organization configures outside policies: MCP servers and integrations,
 * tools, observe windows, webhooks. Kept here so App names them in one line; their navigation
 * entries are in app/navigation.ts.
 */
import { Route } from "react-router";
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
