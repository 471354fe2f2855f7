import type { ComponentType } from "react";
import type { Role } from "@countersign/protocol/wire";
import { can } from "../session/roles.js";
import { WaitingCount } from "../routes/approvals/WaitingCount.js";

export interface NavEntry {
  label: string;
  /** Under /orgs/<id>; "" is the overview. */
  path: string;
  /** Who sees the entry; the page itself and the Cloud API check the same. */
  shows?: (role: Role | null) => boolean;
  /** A small live figure next to the entry (the number of waiting approval requests). */
  badge?: ComponentType<{ orgId: string }>;
}

/**
 * The organization's navigation, in groups, in the order a person works: what happens, what is
 * configured, who and what may act. Pages of every area are routes under /orgs/:orgId/<path>.
 */
export const navigation: { group: string; entries: NavEntry[] }[] = [
  {
    group: "Activity",
    entries: [
      { label: "Overview", path: "" },
      { label: "Approvals", path: "/approvals", shows: can.decideApprovals, badge: WaitingCount },
      { label: "Actions", path: "/actions" },
      { label: "Receipts", path: "/receipts" },
      { label: "Observe", path: "/observe" },
    ],
  },
  {
    group: "Configuration",
    entries: [
      { label: "Agents", path: "/agents" },
      { label: "Policies", path: "/policies" },
      { label: "MCP servers", path: "/mcp-servers" },
      { label: "Tools", path: "/tools" },
      { label: "Webhooks", path: "/webhooks", shows: can.manage },
    ],
  },
  {
    group: "Organization",
    entries: [
      { label: "Principal", path: "/principal" },
      { label: "Members", path: "/members", shows: can.administer },
      { label: "Management keys", path: "/keys", shows: can.administer },
      { label: "Audit log", path: "/audit", shows: can.administer },
      { label: "Plan and billing", path: "/billing" },
      { label: "Settings", path: "/settings", shows: can.administer },
    ],
  },
];
