import { Group, Progress, Text } from "@mantine/core";
import type { Usage } from "@countersign/protocol/wire";
import { DataTable } from "./DataTable.js";
import { statusColor } from "../theme/status.js";

// Each key names one of the plan's figures ({used, limit}; limit null is unlimited).
const rows = [
  { key: "protected_actions", label: "Protected actions this month" },
  { key: "members", label: "Members (with open invitations)" },
  { key: "agents", label: "Agents" },
  { key: "api_keys", label: "API keys" },
  { key: "mcp_servers", label: "MCP servers" },
  { key: "tools", label: "Tools" },
  { key: "policies", label: "Policies" },
  { key: "webhook_endpoints", label: "Webhook endpoints" },
] as const;

type Row = (typeof rows)[number] & { used: number; limit: number | null };

/**
 * What the organization uses of each of its plan's allowances, with a bar where there is a limit:
 * the bar turns to the "waiting" colour from 80% and to the "denied" one at the limit, and the
 * numbers beside it say the same in words.
 */
export function Allowances({ usage }: { usage: Usage }) {
  const data: Row[] = rows.map((r) => ({ ...r, ...usage[r.key] }));
  return (
    <DataTable
      testId="allowances"
      caption="The plan's allowances and what the organization uses of them"
      rows={data}
      rowKey={(r) => r.key}
      empty={null}
      columns={[
        { key: "label", header: "Allowance", render: (r) => r.label },
        {
          key: "used",
          header: "Used",
          align: "right",
          render: (r) => (
            <Group gap="sm" justify="flex-end" wrap="nowrap">
              {r.limit !== null && (
                <Progress
                  w={96}
                  value={Math.min(100, (r.used / Math.max(r.limit, 1)) * 100)}
                  color={
                    r.used >= r.limit
                      ? statusColor("plan_limit")
                      : r.used >= r.limit * 0.8
                        ? statusColor("pending")
                        : undefined
                  }
                  aria-label={r.label}
                />
              )}
              <Text span inherit>
                {r.used}
              </Text>
            </Group>
          ),
        },
        { key: "limit", header: "Limit", align: "right", render: (r) => r.limit ?? "no limit" },
      ]}
    />
  );
}
