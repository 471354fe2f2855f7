import type { Usage } from "@countersign/protocol/wire";

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

/** What the organization uses of each of its plan's allowances, with a meter where there is a limit. */
export function Allowances({ usage }: { usage: Usage }) {
  return (
    <table data-testid="allowances">
      <thead>
        <tr>
          <th>Allowance</th>
          <th>Used</th>
          <th>Limit</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(({ key, label }) => {
          const a = usage[key];
          return (
            <tr key={key}>
              <td>{label}</td>
              <td>
                {a.limit !== null ? (
                  <meter
                    min={0}
                    max={a.limit}
                    value={Math.min(a.used, a.limit)}
                    high={a.limit * 0.8}
                    aria-label={label}
                  />
                ) : null}{" "}
                {a.used}
              </td>
              <td>{a.limit ?? "no limit"}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
